package output

// Tone is how a cell reads at a glance; the command says which tone an outcome has.
type Tone int

const (
	// Plain is printed as it is.
	Plain Tone = iota
	// Notice is for what works another way than expected (a request proxied to a peer): cyan.
	Notice
	// Failure is for what fails (a 404 or 503): red.
	Failure
)

var toneCodes = map[Tone]string{Notice: "\x1b[36m", Failure: "\x1b[31m"}

// toneCodeList is toneCodes' values: the only escape sequences, with colorReset, that Guard
// lets through (when colour is on).
var toneCodeList = []string{toneCodes[Notice], toneCodes[Failure]}

const colorReset = "\x1b[0m"

// Paint colours text in tone when o.Color is set and the format is for people (table, wide,
// text); every other format, and a terminal without colour, gets text as it is. Table widths
// are unaffected: tablewriter measures cells without their escape sequences.
func (o Options) Paint(text string, t Tone) string {
	code, ok := toneCodes[t]
	if !o.Color || !ok || text == "" {
		return text
	}
	switch o.Format {
	case FormatTable, FormatWide, FormatText:
		return code + text + colorReset
	}
	return text
}
