package snapshot

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// marshalYAML is yaml.Marshal(s), byte for byte, at a cost in proportion to the file: the
// request counts (up to MaxRequestCountRows rows per server) are written row by row into the
// document sigs.k8s.io/yaml writes for the rest, which would otherwise hold every row as a tree
// of interfaces (40,000 rows per server took 850 MB; JSON 80 MB). s is compact's copy: its
// servers' Requests may be replaced.
func marshalYAML(s *Snapshot) ([]byte, error) {
	type splice struct {
		marker []byte
		counts []RequestCount
		server int
		orig   *RequestCounts
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	var splices []splice
	rows := 0
	for i := range s.Servers {
		rc := s.Servers[i].Requests
		if rc == nil || len(rc.Counts) == 0 || rc.Error != "" {
			continue
		}
		// The counts are left out and the error, which sorts right after them, marks where
		// they go.
		marker := "mvpctl-counts-" + hex.EncodeToString(nonce[:]) + "-" + strconv.Itoa(i)
		cp := *rc
		cp.Counts, cp.Error = nil, marker
		s.Servers[i].Requests = &cp
		splices = append(splices, splice{[]byte("error: " + marker + "\n"), rc.Counts, i, rc})
		rows += len(rc.Counts)
	}
	data, err := yaml.Marshal(s)
	if err != nil || len(splices) == 0 {
		return data, err
	}
	// Whatever the rows cannot be written as (a value YAML writes over several lines): the
	// whole document as sigs.k8s.io/yaml writes it.
	whole := func() ([]byte, error) {
		for _, sp := range splices {
			s.Servers[sp.server].Requests = sp.orig
		}
		return yaml.Marshal(s)
	}
	var b bytes.Buffer
	b.Grow(len(data) + rows*90)
	w := countsWriter{b: &b, scalars: map[string]string{}}
	rest := data
	for _, sp := range splices {
		i := bytes.Index(rest, sp.marker)
		if i < 0 {
			return whole()
		}
		start := bytes.LastIndexByte(rest[:i], '\n') + 1
		indent := string(rest[start:i])
		b.Write(rest[:start])
		if !w.write(indent, sp.counts) {
			return whole()
		}
		rest = rest[i+len(sp.marker):]
	}
	b.Write(rest)
	return b.Bytes(), nil
}

// countsWriter writes request-count rows as sigs.k8s.io/yaml does: keys sorted, a sequence at
// its key's indentation, strings quoted as it quotes them.
type countsWriter struct {
	b       *bytes.Buffer
	scalars map[string]string
}

// write reports false when a value is not written on one line.
func (w *countsWriter) write(indent string, counts []RequestCount) bool {
	b := w.b
	b.WriteString(indent + "counts:\n")
	for _, c := range counts {
		b.WriteString(indent + "- count: " + strconv.FormatInt(c.Count, 10) + "\n")
		for _, kv := range [...][2]string{{"group", c.Group}, {"resource", c.Resource}, {"subresource", c.Subresource}, {"verb", c.Verb}, {"version", c.Version}} {
			if kv[1] == "" && (kv[0] == "group" || kv[0] == "subresource") {
				continue // omitempty
			}
			v, ok := w.scalar(kv[1])
			if !ok {
				return false
			}
			b.WriteString(indent + "  " + kv[0] + ": " + v + "\n")
		}
	}
	return true
}

// scalar is s as sigs.k8s.io/yaml writes a string value: plain when it reads back as the same
// string, else as it quotes it (asked once per distinct value).
func (w *countsWriter) scalar(s string) (string, bool) {
	if plainScalar(s) {
		return s, true
	}
	if v, ok := w.scalars[s]; ok {
		return v, true
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return "", false
	}
	v := strings.TrimSuffix(string(out), "\n")
	if strings.Contains(v, "\n") {
		return "", false // a block scalar, at an indentation of its own
	}
	w.scalars[s] = v
	return v, true
}

// plainScalar: a letter, then letters, digits, dots and dashes, and not a word YAML 1.1 reads as
// a boolean or null: written as it is.
func plainScalar(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '-' {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
