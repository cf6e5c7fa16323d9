package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// One budget bounds the client evidence a run reads from outside, over all its sources
// together: every --manifests path, every Helm release record and every page of managedFields
// (of all the GVRs read) count against the same bytes, documents and objects. A source that reaches it is cut there: what was read before
// stays evidence, the source is said to be cut (EvidenceSource.Cut) and the verdict partial;
// the sources after it are not read at all. A file larger than what is left is refused before
// a byte of it is read. 128 MiB of YAML is about 4 s of decoding on one core: the bound keeps a
// run with every source at its bound under 10 s.
const (
	MaxEvidenceBytes     = 128 << 20
	MaxEvidenceDocuments = 200_000
	MaxEvidenceObjects   = 200_000
)

// Budget is what is left of a run's evidence budget. The zero value is spent: use NewBudget.
type Budget struct {
	// max is the whole budget, as said in errors.
	max        int64
	bytes      int64
	docs, objs int
	// spent is the bound that was reached, once one was.
	spent *BudgetError
	// ctx, when set, stops a read between two documents once it is done (StopWith).
	ctx context.Context
}

// StopWith makes every read within the budget stop between two documents once ctx is done,
// with ctx's error: a signal ends a run within a document, not within a source.
func (b *Budget) StopWith(ctx context.Context) { b.ctx = ctx }

// NewBudget is a whole budget: MaxEvidenceBytes, MaxEvidenceDocuments, MaxEvidenceObjects.
func NewBudget() *Budget {
	return &Budget{max: MaxEvidenceBytes, bytes: MaxEvidenceBytes, docs: MaxEvidenceDocuments, objs: MaxEvidenceObjects}
}

// BudgetError says which bound of the budget a source reached, and where.
type BudgetError struct {
	// Bound is the bound as said: "256 MiB", "200000 documents".
	Bound string
	// At is where it was reached: a file, a release.
	At string
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("cut at %s, where the run reached its bound of %s over all sources", e.At, e.Bound)
}

// AsBudgetError reports whether err is a budget's, and which.
func AsBudgetError(err error) (*BudgetError, bool) {
	var be *BudgetError
	ok := errors.As(err, &be)
	return be, ok
}

func (b *Budget) spend(e *BudgetError) *BudgetError {
	if b.spent == nil {
		b.spent = e
	}
	return b.spent
}

// Spent is the bound reached, or nil.
func (b *Budget) Spent() *BudgetError { return b.spent }

// Room is how many bytes are left (0 once spent).
func (b *Budget) Room() int64 {
	if b.spent != nil {
		return 0
	}
	return b.bytes
}

// Take takes n bytes of the budget at once (a file's size before it is read, a release
// record's): nil when they fit, else the budget's error and nothing taken.
func (b *Budget) Take(n int64, at string) error {
	if b.spent != nil {
		return b.spent
	}
	if n > b.bytes {
		return b.spend(&BudgetError{Bound: fmt.Sprintf("%d MiB", b.max>>20), At: at})
	}
	b.bytes -= n
	return nil
}

// document takes one document; object one object.
func (b *Budget) document(at string) error {
	if b.spent != nil {
		return b.spent
	}
	if b.ctx != nil && b.ctx.Err() != nil {
		return b.ctx.Err()
	}
	if b.docs--; b.docs < 0 {
		return b.spend(&BudgetError{Bound: fmt.Sprintf("%d documents", MaxEvidenceDocuments), At: at})
	}
	return nil
}

func (b *Budget) object(at string) error {
	if b.spent != nil {
		return b.spent
	}
	if b.objs--; b.objs < 0 {
		return b.spend(&BudgetError{Bound: fmt.Sprintf("%d objects", MaxEvidenceObjects), At: at})
	}
	return nil
}

// TakePage takes one page of a listed source at once (a page of objects' managedFields): its
// bytes, one document and its objects. nil when they fit, else the budget's error (or, once
// the run's context is done, its error).
func (b *Budget) TakePage(bytes int64, objects int, at string) error {
	if err := b.document(at); err != nil {
		return err
	}
	if objects > b.objs {
		return b.spend(&BudgetError{Bound: fmt.Sprintf("%d objects", MaxEvidenceObjects), At: at})
	}
	if err := b.Take(bytes, at); err != nil {
		return err
	}
	b.objs -= objects
	return nil
}

// Reader reads r, taking each byte read from the budget: past it, the read ends with the
// budget's error (Spent says it too, when a decoder rewords the read error).
func (b *Budget) Reader(r io.Reader, at string) io.Reader { return &budgetReader{b: b, r: r, at: at} }

type budgetReader struct {
	b  *Budget
	r  io.Reader
	at string
}

func (br *budgetReader) Read(p []byte) (int, error) {
	if br.b.spent != nil {
		return 0, br.b.spent
	}
	if int64(len(p)) > br.b.bytes+1 {
		p = p[:br.b.bytes+1]
	}
	n, err := br.r.Read(p)
	if int64(n) > br.b.bytes {
		return 0, br.b.spend(&BudgetError{Bound: fmt.Sprintf("%d MiB", br.b.max>>20), At: br.at})
	}
	br.b.bytes -= int64(n)
	return n, err
}
