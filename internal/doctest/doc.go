// Package doctest holds the tests of the documentation: every runnable
// command block of README.md and docs/ is run and its exit code and shown
// output checked, and every relative link and #anchor is resolved. The
// conventions are in docs/testing.md ("Documentation that is tested").
package doctest
