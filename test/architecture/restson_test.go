package architecture

import (
	"strings"
	"testing"
)

// restsOnLiterals are the words of what a result rests on: the marks its lines start with and
// the caveats that refer to them. They are said in pkg/basis/wording.go only; every other
// file (the renderers, the exit-code table, the profile deriver) takes them from there.
var restsOnLiterals = []apiserverLiteral{
	{"PROVISIONAL", false, "basis.ProvisionalMark, basis.ProvisionalLine"},
	{"ASSUMED", false, "basis.AssumedMark, basis.AssumedLine"},
	{"STATED", false, "basis.StatedMark, basis.StatedLine"},
	{"rests on the provisional profile", false, "basis.RestsOn's caveats (GateCaveats, SimulationResult)"},
	{"assumption(s) (the", false, "basis.RestsOn's caveats (GateCaveats, SimulationResult)"},
}

// TestRestsOnWordsInOnePlace: the provisional sentence, and every other mark and caveat of
// what a result rests on, is in one file.
func TestRestsOnWordsInOnePlace(t *testing.T) {
	for _, h := range literalHits(t, moduleRoot(t), restsOnLiterals, "pkg/basis/wording.go") {
		t.Errorf("%s: a caveat of what a result rests on outside pkg/basis/wording.go", h)
	}
}

// TestRestsOnHitsFind: the scan finds the provisional sentence in a file other than its own,
// and not in that one.
func TestRestsOnHitsFind(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	write("pkg/basis/wording.go", "package basis\n\nconst ProvisionalMark = \"PROVISIONAL\"\n")
	write("pkg/replay/r.go", "package replay\n\nvar why = \"it rests on the provisional profile %s (the PROVISIONAL lines)\"\n")
	got := literalHits(t, dir, restsOnLiterals, "pkg/basis/wording.go")
	want := []string{
		`pkg/replay/r.go:3: "PROVISIONAL" (use basis.ProvisionalMark, basis.ProvisionalLine)`,
		`pkg/replay/r.go:3: "rests on the provisional profile" (use basis.RestsOn's caveats (GateCaveats, SimulationResult))`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
