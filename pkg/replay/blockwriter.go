package replay

import (
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// blockEvent is one request of a block. Its strings alias the block's arena (or, agent, the
// worker's interned agents): they cost no allocation each.
type blockEvent struct {
	method   string
	uri      string
	agent    string
	auditID  string
	received string // the raw requestReceivedTimestamp
	idHash   uint64 // idHash(auditID), for replay's recentIDSet
	code     int
	pair     int32 // index in block.pairs
}

// blockPair is one (user agent, request class) of a block: replay counts a block by its
// pairs, and decides each class once, rather than event by event.
type blockPair struct {
	*pairInfo
	// n and sample are replay's, while it counts the block: the pair's events that are not
	// proxied copies, and the first of them.
	n      int64
	sample int32
}

// pairInfo is a user agent and what route.ParseRequest makes of a request: unparsable,
// non-resource, or a resource request with its decision key. It never changes once made, so
// replay may read it while the worker that made it goes on.
type pairInfo struct {
	agent string
	kind  route.RequestKind
	key   decisionKey
}

// pairRef is a worker's handle on a pairInfo: block and index tell whether the block being
// written has the pair yet.
type pairRef struct {
	info  *pairInfo
	block uint64
	index int32
}

// blockWriter fills a block's events and pairs, one worker's blocks after another. It keeps the
// pairs and user agents it has seen, up to cacheSize each, and the class of the requests
// route.ClassifyRequest declines (route.ParseRequest, memoised by method and URI).
type blockWriter struct {
	b      *block
	seq    uint64
	pairs  map[string]*pairRef
	agents map[string]string
	parsed map[string]route.RequestClass // by method and URI
	key    []byte
	// offs holds each event's offsets in the arena until finish makes the arena a string.
	offs []eventOffsets
}

type eventOffsets struct{ uri, id, received, end int32 }

// cacheSize bounds each of a worker's memo tables; a full table is cleared.
const cacheSize = 2048

func newBlockWriter() *blockWriter {
	return &blockWriter{pairs: map[string]*pairRef{}, agents: map[string]string{}, parsed: map[string]route.RequestClass{}}
}

func (w *blockWriter) start(b *block) {
	w.b, w.seq = b, w.seq+1
	b.events, b.pairs, b.arena = b.events[:0], b.pairs[:0], b.arena[:0]
	w.offs = w.offs[:0]
}

// add appends one request; ev's byte slices are copied.
func (w *blockWriter) add(ev auditFields) {
	b := w.b
	o := eventOffsets{uri: int32(len(b.arena))}
	b.arena = append(b.arena, ev.uri...)
	o.id = int32(len(b.arena))
	b.arena = append(b.arena, ev.auditID...)
	o.received = int32(len(b.arena))
	b.arena = append(b.arena, ev.received...)
	o.end = int32(len(b.arena))
	w.offs = append(w.offs, o)
	b.events = append(b.events, blockEvent{method: ev.method, code: ev.code, pair: w.pair(ev.method, ev.uri, ev.agent)})
}

// pair returns the index in the block of the request's (agent, class), adding it if need be.
func (w *blockWriter) pair(method string, uri, agent []byte) int32 {
	c, ok := route.ClassifyRequest(method, uri)
	if !ok {
		c = w.parse(method, uri)
	}
	k := append(w.key[:0], byte(c.Kind))
	for _, f := range [][]byte{c.Group, c.Version, c.Resource, c.Subresource, agent} {
		k = append(k, f...)
		k = append(k, 0)
	}
	w.key = k
	ref := w.pairs[string(k)]
	if ref == nil {
		if len(w.pairs) >= cacheSize {
			clear(w.pairs)
		}
		info := &pairInfo{agent: w.agent(agent), kind: c.Kind}
		if c.Kind == route.KindResource {
			info.key = decisionKey{gvr: snapshot.GVR{Group: string(c.Group), Version: string(c.Version), Resource: string(c.Resource)}, sub: string(c.Subresource)}
		}
		ref = &pairRef{info: info}
		w.pairs[string(k)] = ref
	}
	if ref.block != w.seq {
		ref.block, ref.index = w.seq, int32(len(w.b.pairs))
		w.b.pairs = append(w.b.pairs, blockPair{pairInfo: ref.info})
	}
	return ref.index
}

// parse classifies a request ClassifyRequest declines, with route.ParseRequest.
func (w *blockWriter) parse(method string, uri []byte) route.RequestClass {
	k := append(append(append(w.key[:0], method...), ' '), uri...)
	w.key = k
	if c, ok := w.parsed[string(k)]; ok {
		return c
	}
	var c route.RequestClass
	switch req, err := route.ParseRequest(method, string(uri)); {
	case err != nil:
		c.Kind = route.KindUnparsable
	case !req.Info.IsResourceRequest:
		c.Kind = route.KindNonResource
	default:
		c = route.RequestClass{Kind: route.KindResource, Group: []byte(req.Info.APIGroup), Version: []byte(req.Info.APIVersion),
			Resource: []byte(req.Info.Resource), Subresource: []byte(req.Info.Subresource)}
	}
	if len(w.parsed) >= cacheSize {
		clear(w.parsed)
	}
	w.parsed[string(k)] = c
	return c
}

func (w *blockWriter) agent(b []byte) string {
	a, ok := w.agents[string(b)]
	if !ok {
		if len(w.agents) >= cacheSize {
			clear(w.agents)
		}
		a = string(b)
		w.agents[a] = a
	}
	return a
}

// finish makes the arena one string and points the events' strings into it.
func (w *blockWriter) finish() {
	b := w.b
	arena := string(b.arena)
	for i := range b.events {
		e, o := &b.events[i], w.offs[i]
		e.uri, e.auditID, e.received = arena[o.uri:o.id], arena[o.id:o.received], arena[o.received:o.end]
		e.agent = b.pairs[e.pair].agent
		if e.auditID != "" {
			e.idHash = idHash(e.auditID)
		}
	}
	w.b = nil
}
