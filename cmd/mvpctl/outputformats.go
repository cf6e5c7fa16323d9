package main

import "github.com/mvpctl/mvpctl/pkg/output"

// tableFlags are the -o flags of a command whose result is a table: table (the default),
// output.TableFormats (wide, name, jsonpath, csv), then the command's other formats.
func tableFlags(others ...output.Format) *output.Flags {
	return output.NewFlags(append(append([]output.Format{output.FormatTable}, output.TableFormats...), others...)...)
}

// streamFormats are the -o flags of a stream of events, the same for mvpctl watch and
// mvpctl routes --watch: text (alias table, the name routes gave it) or JSON Lines.
func streamFormats() *output.Flags {
	return output.NewFlags(output.FormatText, output.FormatJSON).Alias("table", output.FormatText)
}
