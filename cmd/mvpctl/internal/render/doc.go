// Package render turns each report mvpctl prints into a value pkg/output can print in every
// format its command offers: Object for -o json, yaml and jsonpath; Table for table, wide and
// csv; WriteText for prose and tables for people; Names for -o name; WriteMermaid and
// WriteDOT where a report is drawn. One file per report type, as cli-runtime's printers and
// helm's pkg/cli/output keep printing apart from the commands: a command builds its options,
// calls the library, wraps the result in its renderer and hands it to output.Write.
//
// Renderers make sentences only where a person reads them, from typed values (an outcome's
// colour from mvp.Outcome, never from a cell's text); they read no flags, open no files and
// decide no exit code.
package render
