package jsonbench

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/json"
	"io"
	"sync"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/minio/simdjson-go"
	"github.com/tidwall/gjson"
	"github.com/valyala/fastjson"

	"github.com/mvpctl/mvpctl/pkg/auditlog"
	"github.com/mvpctl/mvpctl/test/fake/auditevents"
)

var (
	once  sync.Once
	log   []byte
	lines [][]byte
	gz    []byte
)

func data(b *testing.B) {
	once.Do(func() {
		var buf bytes.Buffer
		if err := auditevents.Write(&buf, auditevents.Options{Seed: 1, Requests: 100000}); err != nil {
			panic(err)
		}
		log = buf.Bytes()
		lines = bytes.Split(bytes.TrimSuffix(log, []byte("\n")), []byte("\n"))
		var z bytes.Buffer
		w := stdgzip.NewWriter(&z)
		w.Write(log)
		w.Close()
		gz = z.Bytes()
	})
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
}

type event struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
}

var sink int

func BenchmarkEncodingJSON(b *testing.B) {
	data(b)
	for b.Loop() {
		for _, l := range lines {
			var ev event
			if err := json.Unmarshal(l, &ev); err != nil {
				b.Fatal(err)
			}
			sink += len(ev.Verb) + len(ev.RequestURI)
		}
	}
}

func BenchmarkAuditlogScan(b *testing.B) {
	data(b)
	var f auditlog.Fields
	for b.Loop() {
		for _, l := range lines {
			if !auditlog.Scan(l, &f) {
				b.Fatalf("slow path for %s", l)
			}
			sink += len(f.Verb) + len(f.RequestURI)
		}
	}
}

func BenchmarkFastjson(b *testing.B) {
	data(b)
	var p fastjson.Parser
	for b.Loop() {
		for _, l := range lines {
			v, err := p.ParseBytes(l)
			if err != nil {
				b.Fatal(err)
			}
			sink += len(v.GetStringBytes("kind")) + len(v.GetStringBytes("apiVersion")) + len(v.GetStringBytes("stage")) +
				len(v.GetStringBytes("verb")) + len(v.GetStringBytes("requestURI")) + len(v.GetStringBytes("userAgent"))
		}
	}
}

var paths = []string{"kind", "apiVersion", "stage", "verb", "requestURI", "userAgent"}

// BenchmarkGjson reads the fields without validating the line (gjson does not).
func BenchmarkGjson(b *testing.B) {
	data(b)
	for b.Loop() {
		for _, l := range lines {
			for _, r := range gjson.GetManyBytes(l, paths...) {
				sink += len(r.Str)
			}
		}
	}
}

// BenchmarkGjsonValid validates first, as replay must: a truncated line is malformed.
func BenchmarkGjsonValid(b *testing.B) {
	data(b)
	for b.Loop() {
		for _, l := range lines {
			if !gjson.ValidBytes(l) {
				b.Fatal("invalid")
			}
			for _, r := range gjson.GetManyBytes(l, paths...) {
				sink += len(r.Str)
			}
		}
	}
}

// BenchmarkSimdjson parses the whole log as newline-delimited JSON (AVX2 only).
func BenchmarkSimdjson(b *testing.B) {
	if !simdjson.SupportedCPU() {
		b.Skip("CPU without AVX2/CLMUL")
	}
	data(b)
	var pj *simdjson.ParsedJson
	var el *simdjson.Element
	for b.Loop() {
		var err error
		pj, err = simdjson.ParseND(log, pj)
		if err != nil {
			b.Fatal(err)
		}
		err = pj.ForEach(func(i simdjson.Iter) error {
			for _, k := range paths {
				el, err = i.FindElement(el, k)
				if err == nil {
					s, _ := el.Iter.StringBytes()
					sink += len(s)
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGunzipStdlib(b *testing.B) {
	data(b)
	for b.Loop() {
		r, err := stdgzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGunzipKlauspost(b *testing.B) {
	data(b)
	for b.Loop() {
		r, err := kgzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
