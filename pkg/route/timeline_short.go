package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// shortOutcome is an outcome key of a switch as a table cell says it: 503 (WHICH), 404.
var shortOutcome = strings.NewReplacer(
	"unavailable/", "503 ",
	"not-found", "404",
	"proxied", "proxied",
	"local", "local")

// ShortTimeline is d.Timeline as a table cell says it: one short phrase per switch, in order
// (the answer it switches to and when), for a column beside the answer; Plain.Timeline is the
// long form.
func (d Decision) ShortTimeline() []string {
	var out []string
	for _, sw := range d.Timeline {
		answer := shortOutcome.Replace(sw.To)
		for _, a := range sw.AlsoPossible {
			answer += " or " + shortOutcome.Replace(a)
		}
		switch sw.Event {
		case mvp.EndpointKeyExpiry:
			when := "when the address of " + strings.Join(sw.Servers, ", ") + " expires"
			if sw.Earliest != nil && sw.Latest != nil {
				when = fmt.Sprintf("%s–%s UTC", clock(*sw.Earliest), clock(ceilSecond(*sw.Latest)))
			}
			out = append(out, answer+" "+when)
		case mvp.PeerDiscoveryRebuild:
			line := answer + " at the next peer-discovery rebuild"
			if sw.Latest != nil {
				line += fmt.Sprintf(" (by %s UTC)", clock(ceilSecond(*sw.Latest)))
			}
			out = append(out, line)
		}
	}
	return out
}
