package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
)

// notTables are the commands with -o whose result is not a table, and why: they offer none of
// the forms of a table's rows (name, jsonpath, csv), which TestTableFormatsEverywhere checks,
// so that this list stays true.
var notTables = map[string]string{
	"mvpctl snapshot":        "writes the snapshot document",
	"mvpctl profiles record": "writes the profile document",
	"mvpctl version":         "three lines of prose, as kubectl version",
	"mvpctl watch":           "a stream of lines (text, aliases table and wide) or JSON Lines",
}

// narrowTables are the commands whose table has no wide columns: -o wide prints the table,
// and the help of -o says so.
var narrowTables = []string{"mvpctl discovery expected", "mvpctl profiles list", "mvpctl traffic"}

// TestTableFormatsEverywhere: every command that prints a table takes kubectl's forms of it,
// as its -o flag declares them; a table without wide columns says so in the help
// of -o rather than refusing -o wide.
func TestTableFormatsEverywhere(t *testing.T) {
	tableForms := []string{"table", "wide", "name", "jsonpath=TEMPLATE", "csv"}
	seen := map[string]bool{}
	for _, f := range outputFlags() {
		seen[f.command] = true
		t.Run(f.command, func(t *testing.T) {
			if why, ok := notTables[f.command]; ok {
				for _, form := range []string{"name", "jsonpath=TEMPLATE", "csv"} {
					if slices.Contains(f.formats, form) {
						t.Errorf("-o %s offered, but the command is listed as printing no table (%s): remove it from notTables", form, why)
					}
				}
				return
			}
			for _, form := range tableForms {
				if !slices.Contains(f.formats, form) {
					t.Errorf("-o %s missing: the command prints a table (formats %v)", form, f.formats)
				}
			}
			if narrow := slices.Contains(narrowTables, f.command); narrow != strings.Contains(f.usage, cli.WideIsTable) {
				t.Errorf("narrow table %v, but the help of -o is %q", narrow, f.usage)
			}
		})
	}
	for _, c := range append(slices.Collect(maps.Keys(notTables)), narrowTables...) {
		if !seen[c] {
			t.Errorf("%s: listed, but no such command has -o", c)
		}
	}
}

// TestEveryFormatRuns: each command that runs offline prints something in every format its
// -o flag lists, with no error (the flag and the result agree); where the table has no wide
// columns, -o wide prints exactly -o table.
func TestEveryFormatRuns(t *testing.T) {
	const example = "../../examples/skew.yaml"
	args := map[string][]string{
		"mvpctl discovery diff":     {"discovery", "diff", "--snapshot", example},
		"mvpctl discovery expected": {"discovery", "expected", "--snapshot", example},
		"mvpctl explain":            {"explain", "--snapshot", example, "jobs"},
		"mvpctl preflight":          {"preflight", "--snapshot", example, "--to", "1.37", "--group", "networking.k8s.io"},
		"mvpctl profiles list":      {"profiles", "list"},
		"mvpctl profiles show":      {"profiles", "show", "1.36"},
		"mvpctl routes":             {"routes", "--snapshot", example},
		"mvpctl simulate upgrade":   {"simulate", "upgrade", "--snapshot", example, "--to", "1.37"},
		"mvpctl version":            {"version"},
	}
	for _, f := range outputFlags() {
		base, ok := args[f.command]
		if !ok {
			continue
		}
		delete(args, f.command)
		for _, form := range f.formats {
			if form == "jsonpath=TEMPLATE" {
				form = "jsonpath={.apiVersion}"
			}
			t.Run(f.command+" -o "+form, func(t *testing.T) {
				out, errOut, code := run(t, append(slices.Clone(base), "-o", form)...)
				if code == ExitError || out == "" {
					t.Errorf("exit %d, stdout %d bytes; stderr %q", code, len(out), errOut)
				}
				if form == "jsonpath={.apiVersion}" && !strings.HasPrefix(out, "mvpctl.io/") {
					t.Errorf("-o %s printed %q, want the document's apiVersion", form, out)
				}
			})
		}
		if slices.Contains(narrowTables, f.command) {
			table, _, _ := run(t, append(slices.Clone(base), "-o", "table")...)
			// the same words: a pipe wraps the table output's prose at 100 columns, not wide's
			if wide, _, _ := run(t, append(slices.Clone(base), "-o", "wide")...); strings.Join(strings.Fields(wide), " ") != strings.Join(strings.Fields(table), " ") {
				t.Errorf("%s: -o wide is not -o table:\n%s\n---\n%s", f.command, wide, table)
			}
		}
	}
	for c := range args {
		t.Errorf("%s: no such command with -o", c)
	}
}

// TestTrafficFormats: traffic (live only, so not in TestEveryFormatRuns) prints its table for
// -o wide, the servers for -o name and the rows for -o csv.
func TestTrafficFormats(t *testing.T) {
	from := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	rep := &proxytraffic.Report{APIVersion: "mvpctl.io/v1alpha1", Kind: "ProxyTraffic", From: from, To: from.Add(10 * time.Second),
		Servers: []proxytraffic.Server{
			{Name: "kas-a", Version: "v1.36.3", Read: true, ByGVR: true},
			{Name: "kas-b", Version: "v1.36.3", Read: true, ByGVR: true, ProxiedTotal: 3,
				Proxied: []proxytraffic.Count{{GVR: "batch/v1/jobs", Code: "200", Count: 3}}},
		}}
	print := func(o output.Options) string {
		var b strings.Builder
		if err := output.Write(&b, render.Traffic{Report: rep}, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	table := print(output.Options{Format: output.FormatTable})
	if wide := print(output.Options{Format: output.FormatWide}); wide != table || !strings.Contains(table, "batch/v1/jobs   200      3") {
		t.Errorf("-o wide:\n%s\nwant -o table:\n%s", wide, table)
	}
	if got := print(output.Options{Format: output.FormatName}); got != "kas-a\nkas-b\n" {
		t.Errorf("-o name: %q", got)
	}
	want := "SERVER,VERSION,GVR,CODE,PROXIED,ENDPOINT-503\nkas-a,v1.36.3,<none>,,0,\nkas-b,v1.36.3,batch/v1/jobs,200,3,\n"
	if got := print(output.Options{Format: output.FormatCSV}); got != want {
		t.Errorf("-o csv: %q, want %q", got, want)
	}
}
