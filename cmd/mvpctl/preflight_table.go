package main

import (
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// preflightFormats are preflight's -o formats: the findings table and its wide columns, the
// forms a script reads (name, jsonpath, csv), then the documents for CI.
func preflightFormats() *output.Flags {
	return cli.TableFlags(output.FormatJSON, output.FormatYAML, output.FormatJUnit, output.FormatMarkdown, output.FormatMermaid, output.FormatDOT)
}

// preflightWriter is rep's renderer, saying how the run ends by the one exit map.
func preflightWriter(rep *preflight.Report) render.Preflight {
	return render.Preflight{Report: rep, ExitCode: verdictExitCode}
}
