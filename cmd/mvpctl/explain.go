package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

type explainOptions struct {
	source        snapshotSource
	server        string
	headerProxied bool
	verbose       bool
	whyNot        bool
	filter        filterFlags
	output        *output.Flags
	profiles      profileFlags // for what a server's version can serve (--runtime-config inference)
	failOn        []string     // --fail-on: HTTP statuses (404, 503) that make explain exit 3
	steps         []string     // --step: what-if steps applied to the snapshot first (simulate run's)
}

func newExplainCmd(g *globalOptions) *cobra.Command {
	o := &explainOptions{output: output.NewFlags(append(append([]output.Format{output.FormatText, output.FormatTable}, output.TableFormats...), output.FormatJSON, output.FormatYAML, output.FormatMermaid, output.FormatDOT)...)}
	cmd := &cobra.Command{
		Use:   "explain (GVR | RESOURCE[.VERSION][.GROUP] | METHOD PATH)",
		Short: "Explain, step by step, what each apiserver does with one request",
		Long: `Explain one request the way kube-apiserver's peer-proxy filter decides it, for one
apiserver (--apiserver) or for every one: first the answer the client gets (served locally,
proxied to which peer, 404 or 503) and why, then the rules that led to it, each with the
Kubernetes versions it comes from. --why-not says what would make a 404 or 503 succeed;
--verbose adds the decision in the apiserver's own terms (era, identity, routing key).

` + explainForms + `

METHOD is an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD); PATH is the request path with
an optional query, parsed by the same code the apiserver runs. -o json|yaml gives
kind: Explanation, a stable contract documented in docs/explanation.md. -o mermaid|dot draws
the request's path: client, server, proxy filter, peer, and the 404/503 ends.

` + commandExitCodes("explain"),
		Example: `  mvpctl explain --snapshot cluster.yaml batch/v1/jobs
  mvpctl explain --snapshot cluster.yaml -n team-a jobs.batch
  mvpctl explain --snapshot cluster.yaml GET /apis/resource.k8s.io/v1beta1/resourceclaims
  mvpctl explain --snapshot cluster.yaml --fail-on 404,503 cj   # exit 3 if some server answers 404 or 503
  mvpctl explain --snapshot cluster.yaml --apiserver kas-b --header-proxied GET '/apis/batch/v1/jobs?watch=1'`,
		Args: cobra.ArbitraryArgs, // parseExplainArgs says which forms it takes
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g, args) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return usesNamespace(cmd)
}

// addFlags adds the flags of explain but -o (output.Flags' own).
func (o *explainOptions) addFlags(fs *pflag.FlagSet) {
	o.source.addFlags(fs)
	o.profiles.addFlags(fs)
	addAPIServerFlag(fs, &o.server, "explain for this")
	fs.BoolVar(&o.headerProxied, "header-proxied", false, "the request carries "+strings.ToLower(mvp.LoopPreventionHeader)+": true (the loop-prevention header)")
	fs.BoolVar(&o.verbose, "verbose", false, "also print the decision in the apiserver's own terms: era, identities, routing key, caches (text output)")
	fs.BoolVar(&o.whyNot, "why-not", false, "for a 404 or 503, print what would make the request succeed (text and table output)")
	o.filter.addFlags(fs, "choose among")
	addStepFlag(fs, &o.steps, "; applied to the snapshot first: the request is explained right after the last, a crash at the kill with its timeline")
	fs.StringSliceVar(&o.failOn, "fail-on", nil, "exit 3 when some server answers, or may answer, one of these HTTP statuses: 404, 503 (comma-separated)")
}

// validate checks the arguments and flags together, before anything is read: what is
// explained (parseExplainArgs), --fail-on's statuses, and the snapshot source.
func (o *explainOptions) validate(args []string, namespace string) (explainArgs, []int, []simulate.Step, error) {
	a, err := parseExplainArgs(args, o.filter.filter(), namespace)
	if err != nil {
		return a, nil, nil, err
	}
	failOn, err := parseFailOnStatuses(o.failOn)
	if err != nil {
		return a, nil, nil, err
	}
	steps, err := simulate.ParseSteps(o.steps)
	if err != nil {
		return a, nil, nil, err
	}
	return a, failOn, steps, o.source.validate()
}

func (o *explainOptions) run(cmd *cobra.Command, g *globalOptions, args []string) error {
	opts, err := g.outputOptions(cmd, o.output)
	if err != nil {
		return err
	}
	a, failOn, steps, err := o.validate(args, g.configFlags.Overrides.Context.Namespace)
	if err != nil {
		return err
	}
	if err := o.profiles.use(g); err != nil {
		return err
	}
	snap, err := o.source.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	observed := snap
	if snap, err = simulate.WhatIf(snap, steps); err != nil {
		return err
	}
	req, err := a.request(snap, func(s string) { output.Fprintf(g.streams.ErrOut, "note: %s\n", s) })
	if err != nil {
		return err
	}
	req.HeaderProxied = o.headerProxied
	e, err := route.NewRouter(snap).WithCapabilities(profileCapabilities()).Explain(req, o.server)
	if err != nil {
		return err
	}
	for _, st := range steps {
		e.WhatIf = append(e.WhatIf, st.String())
	}
	if err := output.Write(g.streams.Out, explanationWriter{e, observedConfigs(snap), o.verbose, o.whyNot, takenDown(observed, snap)}, opts); err != nil {
		return err
	}
	return explainResult(e, failOn, observed, o.server != "") // a server a step took down was read
}

// explanationWriter prints an explanation: step by step (text), or one row per server.
type explanationWriter struct {
	e       route.Explanation
	configs map[string]runtimeConfigWords // each server's --runtime-config, as stated or observed
	verbose bool
	whyNot  bool
	down    map[string]bool // the servers --step took down: read, then not evaluated
}

// takenDown are the servers reachable in observed and not in after: those steps took down.
func takenDown(observed, after *snapshot.Snapshot) map[string]bool {
	down := map[string]bool{}
	for _, srv := range after.Servers {
		if was := observed.Find(srv.Name); !srv.Reachable && was != nil && was.Reachable {
			down[srv.Name] = true
		}
	}
	return down
}

// notEvaluated says why server u was not evaluated: a step took it down, or it could not
// be read.
func (w explanationWriter) notEvaluated(u route.ServerSummary) string {
	if w.down[u.Name] {
		return "down after the steps (" + u.Error + ")"
	}
	return "it could not be read when the snapshot was taken (" + u.Error + ")"
}

func (w explanationWriter) Object() any { return w.e }

// WriteMermaid and WriteDOT draw the request's path on each server (pkg/diagram).
func (w explanationWriter) WriteMermaid(out io.Writer) error {
	return diagram.Explain(w.e).WriteMermaid(out)
}
func (w explanationWriter) WriteDOT(out io.Writer) error { return diagram.Explain(w.e).WriteDOT(out) }

func (w explanationWriter) WriteText(out io.Writer, o output.Options) error {
	if o.Format == output.FormatText {
		return printExplanation(out, w, o)
	}
	headers, rows := w.Table(o)
	return output.Table(out, headers, rows, o.NoHeaders)
}

// Names are the servers explained, then those that could not be read.
func (w explanationWriter) Names() []string {
	var names []string
	for _, d := range w.e.Servers {
		names = append(names, d.Server)
	}
	for _, u := range w.e.Unreachable {
		names = append(names, u.Name)
	}
	return names
}

// Table is a row per server: its answer, the peers, why; wide adds the HTTP status and the
// era; --why-not what would make it succeed.
func (w explanationWriter) Table(o output.Options) ([]string, [][]string) {
	e, wide := w.e, o.Wide()
	var rows [][]string
	headers := []string{"SERVER", "VERSION", "ANSWER", "PEERS", "WHY"}
	if wide {
		headers = append(headers, "STATUS", "ERA")
	}
	timeline := slices.ContainsFunc(e.Servers, func(d route.Decision) bool { return len(d.Timeline) > 0 })
	if timeline {
		headers = append(headers, "THEN")
	}
	if w.whyNot {
		headers = append(headers, "TO-SUCCEED")
	}
	for _, d := range e.Servers {
		what, why := d.Plain.Split()
		row := []string{d.Server, d.Version, o.Paint(what, outcomeTone(d.Outcome)), strings.Join(peerNames(d), ","), why}
		if wide {
			row = append(row, statusText(d), string(d.Era))
		}
		if timeline {
			row = append(row, strings.Join(d.ShortTimeline(), " → "))
		}
		if w.whyNot {
			row = append(row, strings.Join(d.Plain.WhyNot, "; "))
		}
		rows = append(rows, row)
	}
	for _, u := range e.Unreachable {
		row := []string{u.Name, u.Version, route.Unreachable, "", "not evaluated: " + w.notEvaluated(u)}
		if wide {
			row = append(row, "", string(u.Era))
		}
		if timeline {
			row = append(row, "")
		}
		if w.whyNot {
			row = append(row, "")
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// peerNames are a decision's candidate peers by server name (by identity only when the
// snapshot does not know the server).
func peerNames(d route.Decision) []string {
	names := make([]string, 0, len(d.Candidates))
	for _, c := range d.Candidates {
		names = append(names, c.PeerName())
	}
	return names
}

// profileCapabilities says, from the version profiles, whether a binary version can
// serve a GVR at some --runtime-config; unknown when there is no profile or it has no full set.
func profileCapabilities() func(version string, gvr snapshot.GVR) (bool, bool) {
	cache := map[string]map[snapshot.GVR]bool{}
	return func(version string, gvr snapshot.GVR) (bool, bool) {
		full, seen := cache[version]
		if !seen {
			if p, err := profile.Lookup(version); err == nil && p.Full != nil {
				full = map[snapshot.GVR]bool{}
				for _, r := range p.Full {
					full[r.GVR()] = true
				}
			}
			cache[version] = full
		}
		if full == nil {
			return false, false
		}
		return full[gvr], true
	}
}

// runtimeConfigWords is a server's --runtime-config in words, after "--runtime-config ":
// full says everything; brief, what explain says without --verbose (the same, except that a
// server whose resources fit no runtime-config is "unclear").
type runtimeConfigWords struct{ full, brief string }

// observedConfigs is each reachable server's --runtime-config in words: as its installer
// states it when it does (and where what it serves disagrees), else as inferred from what it
// serves.
func observedConfigs(snap *snapshot.Snapshot) map[string]runtimeConfigWords {
	out := map[string]runtimeConfigWords{}
	for i := range snap.Servers {
		srv := &snap.Servers[i]
		if !srv.Reachable {
			continue
		}
		if sc, ok := simulate.CompareStated(srv); ok && sc.Error == "" {
			words := fmt.Sprintf("as stated (%s): %s", sc.Source, orNone(sc.RuntimeConfig))
			if d := sc.RuntimeConfigDisagreement; d != "" {
				words += " — " + d + "; the server wins"
			}
			out[srv.Name] = runtimeConfigWords{words, words}
			continue
		}
		out[srv.Name] = inferredConfig(simulate.InferRuntimeConfig(srv))
	}
	return out
}

// inferredConfig is an --runtime-config inferred from what a server serves, in words.
func inferredConfig(c simulate.ObservedConfig) runtimeConfigWords {
	var words string
	switch {
	case c.Unknown != "":
		words = "as observed: unknown (" + c.Unknown + ")"
	case len(c.Misfits) > 0:
		some := c.Misfits[:min(3, len(c.Misfits))]
		words = fmt.Sprintf("as observed: fits no runtime-config (%d GVRs do not fit, e.g. %s)", len(c.Misfits), strings.Join(some, "; "))
		return runtimeConfigWords{words, "as observed: unclear (what it serves fits no --runtime-config; --verbose says why)"}
	case c.RuntimeConfig == "":
		words = "as observed: the defaults"
	default:
		words = "as observed: " + c.RuntimeConfig
	}
	return runtimeConfigWords{words, words}
}
