package harness

// AuditPolicy is the audit policy the suite's audit logs are written with (--audit-policy-file):
// every request at Metadata level (no request or response bodies, so no secrets and no tokens)
// once, when the response is complete; health checks left out.
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: Metadata
`
