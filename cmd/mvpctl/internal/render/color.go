package render

import (
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
)

// outcomeTone is the colour of an outcome: 404 and 503 fail, proxied works through a peer.
func outcomeTone(o mvp.Outcome) output.Tone {
	switch o {
	case mvp.NotFound, mvp.Unavailable:
		return output.Failure
	case mvp.Proxied:
		return output.Notice
	}
	return output.Plain
}
