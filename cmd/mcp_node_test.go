package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The official TypeScript SDK as a real client of `effectlint mcp`:
// scripts/mcp-client.mjs spawns this test binary as the server over stdio,
// calls tools/list and every tool, validates each structuredContent
// against the tool's outputSchema and fails on any allow or granted where
// an error must be a refusal. EFFECTLINT_NODE_MCP names the folder where
// npm installed @modelcontextprotocol/sdk (.ci/run installs the pinned
// version); without it the test skips, unless EFFECTLINT_REQUIRE_NODE_MCP=1.
func TestMCP_TypeScriptClient(t *testing.T) {
	dir := os.Getenv("EFFECTLINT_NODE_MCP")
	if dir == "" {
		if os.Getenv("EFFECTLINT_REQUIRE_NODE_MCP") == "1" {
			t.Fatal("EFFECTLINT_NODE_MCP is not set, and EFFECTLINT_REQUIRE_NODE_MCP=1: install @modelcontextprotocol/sdk with npm (see .ci/run)")
		}
		t.Skip("EFFECTLINT_NODE_MCP is not set (the folder where npm installed @modelcontextprotocol/sdk)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("EFFECTLINT_NODE_MCP=%s: no @modelcontextprotocol/sdk there: %v", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	c := exec.Command(node, filepath.Join("..", "scripts", "mcp-client.mjs"), "--sdk", dir, "--", os.Args[0])
	c.Env = append(os.Environ(), asCLI+"=1")
	out, err := c.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("scripts/mcp-client.mjs: %v", err)
	}
	if !strings.Contains(string(out), " 0 failed") {
		t.Fatalf("scripts/mcp-client.mjs did not report its checks")
	}
}
