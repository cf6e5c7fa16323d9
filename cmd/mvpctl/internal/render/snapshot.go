package render

import (
	"io"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Snapshot prints a snapshot (snapshot, profiles record) as the snapshot package writes its files, so that what
// is printed and what is written to a file are the same bytes.
type Snapshot struct{ Snapshot *snapshot.Snapshot }

func (w Snapshot) Object() any { return w.Snapshot }

func (w Snapshot) WriteJSON(out io.Writer) error { return w.write(out, true) }

func (w Snapshot) WriteYAML(out io.Writer) error { return w.write(out, false) }

// WriteText writes YAML: a snapshot is a document, it has no table form.
func (w Snapshot) WriteText(out io.Writer, _ output.Options) error { return w.write(out, false) }

func (w Snapshot) write(out io.Writer, asJSON bool) error {
	data, err := w.Snapshot.Marshal(asJSON)
	if err != nil {
		return err
	}
	_, err = out.Write(data)
	return err
}
