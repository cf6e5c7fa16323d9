package discover

import (
	"fmt"
	"math"
)

// lbConfidence is the probability that no server class was missed, and how it was computed.
//
// leases is the number of live identity leases (L): the apiservers behind the balancer. seen
// is how many of them a sample named, answered the number of answered samples (n).
//
//   - seen == leases: every apiserver answered a sample, so every class that holds one was
//     observed. Confidence 1; nothing is assumed of the balancer.
//   - otherwise, the model: the balancer sends each new connection to each of the L apiservers
//     with probability 1/L, independently (random, or round robin with other clients'
//     connections interleaved). A class that was missed holds at least one apiserver that no
//     sample reached; one apiserver is missed by n samples with probability (1-1/L)^n, so by
//     the union bound over the L apiservers P(some class missed) <= L(1-1/L)^n, and the
//     confidence is 1 - L(1-1/L)^n (at least 0).
//   - leases == 0: the number of apiservers is unknown; no confidence (nil).
//
// Samples that failed are not counted in n: they observed nothing.
func lbConfidence(leases, seen, answered int) (*float64, string) {
	switch {
	case leases <= 0:
		return nil, "no live identity lease was read, so the number of apiservers behind the balancer is unknown and no confidence can be given"
	case seen >= leases:
		one := 1.0
		return &one, fmt.Sprintf("observed: each of the %d live identity leases was named by a sample (its /api serverAddressByClientCIDRs is the lease's peer-advertise address), so every apiserver answered at least one sample", leases)
	}
	l, n := float64(leases), float64(answered)
	c := 1 - l*math.Pow(1-1/l, n)
	if c < 0 {
		c = 0
	}
	return &c, fmt.Sprintf("uniform balancer: each connection reaches each of the L=%d apiservers (live identity leases) with probability 1/L; a missed class holds an apiserver no sample reached, so P(a class missed) <= L(1-1/L)^n with n=%d answered samples (union bound); confidence = 1 - L(1-1/L)^n", leases, answered)
}
