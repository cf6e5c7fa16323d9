package cli

import "github.com/mvpctl/mvpctl/pkg/output"

// TableFlags are the -o flags of a command whose result is a table: table (the default),
// output.TableFormats (wide, name, jsonpath, csv), then the command's other formats.
func TableFlags(others ...output.Format) *output.Flags {
	return output.NewFlags(append(append([]output.Format{output.FormatTable}, output.TableFormats...), others...)...)
}

// WideIsTable is the -o help of a table with no more columns to show: kubectl takes -o wide
// everywhere and says so, rather than refusing it.
const WideIsTable = "wide prints the table's columns: it has no more to show"

// NarrowTableFlags are TableFlags of a table without wide columns.
func NarrowTableFlags(others ...output.Format) *output.Flags {
	return TableFlags(others...).Note(WideIsTable)
}

// StreamFormats are the -o flags of a stream of events, the same for mvpctl watch and
// mvpctl routes --watch: text (aliases table and wide, the names of routes) or JSON Lines.
// name, csv and jsonpath are forms of a result, not of a stream.
func StreamFormats() *output.Flags {
	return output.NewFlags(output.FormatText, output.FormatJSON).
		Alias("table", output.FormatText).Alias("wide", output.FormatText).
		Note("table and wide are text, a line per event (no columns); for a script, json is a document per line (jq)")
}
