package report

// Class is the kind of result a command's report comes to, decided by the package that owns
// the report: whether it is complete, what stands in its way. The commands map each class to
// an exit code in one place; no library chooses one.
type Class uint8

const (
	// OK: the result is complete and nothing in it blocks.
	OK Class = iota
	// Partial: the result was made, but some input could not be read (an apiserver, a
	// document, a counter) or was cut short; the result marks what is missing.
	Partial
	// Warnings: the result was made, whole, but it rests on something less than observation
	// (an assumption, a provisional profile) or carries caveats the report lists.
	Warnings
	// Blocking: the result holds findings that block (a mismatch, a 404/503, stale discovery).
	Blocking
	// Usage: there is no result to show, the input gave nothing to work from.
	Usage
)

var classNames = [...]string{OK: "ok", Partial: "partial", Warnings: "warnings", Blocking: "blocking", Usage: "usage"}

// String is the class's name: ok, partial, warnings, blocking, usage.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "unknown"
}

// Result is what a report comes to: its class and, unless it is OK, why, as a typed value of
// the package that decided it. The reason says itself (String) only where a person reads it.
type Result struct {
	Class  Class
	Reason Reason
}

// Reason is why a result is not OK: a typed value (counts, names) that words itself.
type Reason interface {
	String() string
}

// Done is the OK result.
func Done() Result { return Result{} }

// Of is a result of class c for reason r.
func Of(c Class, r Reason) Result { return Result{Class: c, Reason: r} }

// OK reports whether the result is complete and blocks nothing.
func (r Result) OK() bool { return r.Class == OK }

// String is the class and, unless it is OK, the reason: "partial: b could not be read".
func (r Result) String() string {
	if r.Reason == nil {
		return r.Class.String()
	}
	return r.Class.String() + ": " + r.Reason.String()
}
