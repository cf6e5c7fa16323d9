package discover

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// serverClass is the answered samples that agree on everything the routing rules read of an
// apiserver: what the snapshot records of one apiserver, seen through a balancer.
type serverClass struct {
	name string
	key  string
	// config is key in words, with ETags shortened.
	config string
	// samples are the class's answered samples, in the order taken; servers[i] is what
	// samples[i] recorded.
	samples []*lbSample
	servers []snapshot.Server
	// leases are the live identity leases a sample of the class named, sorted by name, with
	// the index in samples of the first sample that named each.
	leases []classLease
}

type classLease struct {
	lease  *identityLease
	sample int
}

// classKey is what decides a server class: the binary and emulated version, the discovery
// format and the ETags of the non-peer /apis and /api (equal ETags: equal documents, so equal
// resources; a digest of the resources when a document has none), and the proxy
// configuration as the per-server evidence establishes it (peerProxyEvidence: gate, filter
// from the readyz hook, peer-aggregated discovery). It is computed from the snapshot.Server
// the evidence functions built, so a rule that decides a server's configuration is the same
// rule that decides its class.
func classKey(s *snapshot.Server) (key, words string) {
	pp := s.PeerProxy
	docs := "resources " + resourcesDigest(s.Resources)
	if s.APIs != nil && s.APIs.ETag != "" && (s.CoreAPI == nil || s.CoreAPI.ETag != "") {
		docs = "/apis ETag " + s.APIs.ETag
		if s.CoreAPI != nil {
			docs += ", /api ETag " + s.CoreAPI.ETag
		}
	}
	parts := []string{
		s.Version,
		"emulating " + orDash(s.EmulatedVersion),
		"discovery " + orDash(s.DiscoveryFormat),
		docs,
		"gate " + tri(pp.GateEnabled),
		"filter " + tri(pp.FilterInstalled),
		"peer-aggregated discovery " + tri(pp.PeerAggregatedDiscovery),
	}
	key = strings.Join(parts, "; ")
	short := append([]string(nil), parts...)
	short[3] = shortenETags(docs)
	return key, strings.Join(short, "; ")
}

// shortenETags cuts each quoted 128-hex-digit ETag to its first 12 digits, for people.
func shortenETags(s string) string {
	fields := strings.Split(s, " ")
	for i, f := range fields {
		trail := strings.HasSuffix(f, ",")
		f = strings.TrimSuffix(f, ",")
		if len(f) > 16 && strings.HasPrefix(f, `"`) {
			f = f[:13] + `…"`
		}
		if trail {
			f += ","
		}
		fields[i] = f
	}
	return strings.Join(fields, " ")
}

func resourcesDigest(rs []snapshot.Resource) string {
	sorted := append([]snapshot.Resource(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].GVR().String() < sorted[j].GVR().String() })
	b, _ := json.Marshal(sorted) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

func tri(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "on"
	}
	return "off"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// groupClasses groups answered samples (servers[i] recorded from samples[i]) into classes,
// named class-1, class-2, ... by version, then by more samples first, then by key: the same
// samples always give the same names.
func groupClasses(samples []*lbSample, servers []snapshot.Server) []*serverClass {
	byKey := map[string]*serverClass{}
	var classes []*serverClass
	for i, s := range samples {
		key, words := classKey(&servers[i])
		c := byKey[key]
		if c == nil {
			c = &serverClass{key: key, config: words}
			byKey[key] = c
			classes = append(classes, c)
		}
		c.samples = append(c.samples, s)
		c.servers = append(c.servers, servers[i])
	}
	sort.SliceStable(classes, func(i, j int) bool {
		vi, _ := snapshot.ParseVersion(classes[i].servers[0].Version)
		vj, _ := snapshot.ParseVersion(classes[j].servers[0].Version)
		if vi != vj {
			return vi.Less(vj)
		}
		if len(classes[i].samples) != len(classes[j].samples) {
			return len(classes[i].samples) > len(classes[j].samples)
		}
		return classes[i].key < classes[j].key
	})
	for i, c := range classes {
		c.name = fmt.Sprintf("class-%d", i+1)
	}
	return classes
}
