package report

import "embed"

// Schemas holds the JSON Schemas (draft 2020-12) of the JSON outputs:
// schema/report.schema.json for analyze, schema/check.schema.json for check.
// Tests validate every scenario's output against them.
//
//go:embed schema/*.json
var Schemas embed.FS
