package snapshot

import "strings"

// EvidenceBasis is how what an evidence line says is known. Its value is the word a line of
// that basis starts with, where a person reads it.
type EvidenceBasis string

// Evidence bases.
const (
	// EvidenceObserved: read from the server (readyz, leases, discovery, /metrics).
	EvidenceObserved EvidenceBasis = "observed"
	// EvidenceStated: the user said so (a flag, an installer's configuration, a scenario).
	EvidenceStated EvidenceBasis = "stated"
	// EvidenceAssumed: mvpctl took a default; no one said or saw it.
	EvidenceAssumed EvidenceBasis = "assumed"
	// EvidenceSimulated: a simulated step set it.
	EvidenceSimulated EvidenceBasis = "simulated"
)

// EvidenceTopics is the set of the peer-proxy fields an evidence line speaks of.
type EvidenceTopics uint8

// Evidence topics.
const (
	// TopicGate: the feature gate (GateEnabled).
	TopicGate EvidenceTopics = 1 << iota
	// TopicFilter: the proxy filter (FilterInstalled).
	TopicFilter
)

// Has reports whether every topic of t is in ts.
func (ts EvidenceTopics) Has(t EvidenceTopics) bool { return ts&t == t }

// EvidenceKind is what an evidence line is, typed: how it is known and what it speaks of.
type EvidenceKind struct {
	Basis  EvidenceBasis
	Topics EvidenceTopics
}

// Observed is the kind of an observation about topics.
func Observed(topics EvidenceTopics) EvidenceKind {
	return EvidenceKind{Basis: EvidenceObserved, Topics: topics}
}

// AddEvidence appends the line text, of kind k, to the evidence.
func (pp *PeerProxy) AddEvidence(k EvidenceKind, text string) {
	pp.EvidenceKinds = append(pp.evidenceKindsPadded(), k)
	pp.Evidence = append(pp.Evidence, text)
}

// KindOf is the kind of the evidence line i. A line appended without one is an observation
// about no typed topic.
func (pp *PeerProxy) KindOf(i int) EvidenceKind {
	if i < len(pp.EvidenceKinds) {
		return pp.EvidenceKinds[i]
	}
	return Observed(0)
}

// CopyEvidence is pp's evidence with its own slices, so that appending to it leaves pp alone.
func (pp *PeerProxy) CopyEvidence() (lines []string, kinds []EvidenceKind) {
	return append([]string(nil), pp.Evidence...), append([]EvidenceKind(nil), pp.evidenceKindsPadded()...)
}

// evidenceKindsPadded is EvidenceKinds with a kind for every line of Evidence.
func (pp *PeerProxy) evidenceKindsPadded() []EvidenceKind {
	kinds := pp.EvidenceKinds
	for len(kinds) < len(pp.Evidence) {
		kinds = append(kinds, Observed(0))
	}
	return kinds
}

// deriveEvidenceKinds types the evidence lines of a file read. A file keeps evidence as the
// sentences people read (the format has no field for their kinds), so this is the one place
// that reads them back: a line starting with a basis's word is of that basis, any other is
// an observation; the words gate and filter name its topics.
func (s *Snapshot) deriveEvidenceKinds() {
	for i := range s.Servers {
		pp := &s.Servers[i].PeerProxy
		pp.EvidenceKinds = nil
		for _, line := range pp.Evidence {
			k := Observed(0)
			for _, b := range []EvidenceBasis{EvidenceStated, EvidenceAssumed, EvidenceSimulated} {
				if strings.HasPrefix(line, string(b)) {
					k.Basis = b
				}
			}
			if hasWord(line, "gate") {
				k.Topics |= TopicGate
			}
			if hasWord(line, "filter") {
				k.Topics |= TopicFilter
			}
			pp.EvidenceKinds = append(pp.EvidenceKinds, k)
		}
	}
}

// hasWord reports whether w occurs in s between characters that are not letters.
func hasWord(s, w string) bool {
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !letter(s[start-1])) && (end == len(s) || !letter(s[end])) {
			return true
		}
		i = start + 1
	}
}
