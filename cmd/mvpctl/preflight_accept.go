package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// defaultAcceptFile is the accept file preflight reads from the current directory when no
// --baseline is given (and not --no-baseline).
const defaultAcceptFile = ".mvpctl-ignore"

// maxAcceptFile bounds an accept file's size: one rule a line, a larger file is not one.
const maxAcceptFile = 8 << 20

// acceptFlags are preflight's accepted-risk flags.
type acceptFlags struct {
	ignore     []string
	baseline   string
	noBaseline bool
	write      string
	reason     string
}

func (a *acceptFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&a.ignore, "ignore", nil, "accept the findings of check ID (on SUBJECT, which may hold * and ?; \\* \\? \\# \\\\ and \\xHH are those characters): ID[:SUBJECT] (repeatable)")
	fs.StringVar(&a.baseline, "baseline", "", "file of accepted risks, one ID[:SUBJECT] a line (default: "+defaultAcceptFile+" in the current directory, if it exists)")
	fs.BoolVar(&a.noBaseline, "no-baseline", false, "read no file of accepted risks (neither --baseline nor "+defaultAcceptFile+")")
	fs.StringVar(&a.write, "write-baseline", "", "write a baseline that accepts every current finding to FILE (atomically; only a regular file or a link to one is replaced), then exit 0")
	fs.StringVar(&a.reason, "reason", "", "with --write-baseline: why the new entries are accepted (written after their date)")
}

// rules are the accept rules in precedence order: --ignore, then the file's.
func (a *acceptFlags) rules() ([]preflight.AcceptRule, error) {
	if a.reason != "" && a.write == "" {
		return nil, errors.New("--reason goes with --write-baseline")
	}
	if a.write != "" {
		if err := snapshot.CheckWritable(a.write); err != nil {
			return nil, fmt.Errorf("--write-baseline %s: %w", a.write, err)
		}
	}
	var rules []preflight.AcceptRule
	for _, s := range a.ignore {
		r, err := preflight.ParseAcceptRule(s, preflight.SourceIgnoreFlag)
		if err != nil {
			return nil, fmt.Errorf("--ignore %w", err)
		}
		rules = append(rules, r)
	}
	if a.noBaseline {
		if a.baseline != "" {
			return nil, errors.New("--baseline and --no-baseline: give one")
		}
		return rules, nil
	}
	name := a.baseline
	if name == "" {
		name = defaultAcceptFile
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return rules, nil
		}
		if err := snapshot.CheckRegular(name); err != nil {
			return nil, fmt.Errorf("baseline %s: %w: not read; remove it, or give --baseline FILE or --no-baseline", name, err)
		}
	}
	fileRules, err := readAcceptFile(name)
	if err != nil {
		return nil, err
	}
	return append(rules, fileRules...), nil
}

func readAcceptFile(name string) ([]preflight.AcceptRule, error) {
	data, err := cli.ReadBounded(name, maxAcceptFile, "a file of accept rules")
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	return preflight.ParseAcceptFile(bytes.NewReader(data), name)
}

// writeBaseline writes the baseline atomically, its new entries dated today, and says so on
// stderr.
func (a *acceptFlags) writeBaseline(errOut io.Writer, rep *preflight.Report, today time.Time) error {
	var b bytes.Buffer
	if err := preflight.WriteBaseline(&b, rep, today.UTC(), a.reason); err != nil {
		return err
	}
	if err := snapshot.WriteAtomic(a.write, b.Bytes(), ".mvpctl-baseline-*"); err != nil {
		return fmt.Errorf("--write-baseline %s: %w", a.write, err)
	}
	newOnes := fmt.Sprint(len(rep.Findings), " new")
	if len(rep.Findings) > 0 {
		newOnes += ": " + render.CountsByCheck(rep.Findings)
	}
	output.Fprintf(errOut, "wrote %s: %d finding(s) accepted (%s; %d already accepted); %d stale rule(s) dropped\n",
		a.write, len(rep.Findings)+len(rep.Accepted), newOnes, len(rep.Accepted), len(rep.StaleAccepts))
	return nil
}
