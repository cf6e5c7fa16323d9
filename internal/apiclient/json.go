package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
)

// The reads of JSON documents that discovery and the reads of client evidence share: a 200
// JSON answer, whole, decoded.

// GetWhole sends one GET; only transport failures, and bodies past the size limit, are errors.
func (c *Client) GetWhole(ctx context.Context, path, accept string) (*Response, error) {
	resp, err := c.Get(ctx, path, accept)
	if err != nil {
		return nil, err
	}
	if resp.Truncated {
		return nil, InvalidDoc(c.base, path, fmt.Sprintf("the response is larger than %d MiB — not a discovery document?", DefaultMaxBody>>20))
	}
	if resp.Cut != nil {
		return nil, DecodeError(c.base, path, len(resp.Body), resp.Cut)
	}
	return resp, nil
}

// GetJSON GETs path (GetWhole), requires a 200 JSON answer (CheckJSON) and decodes it into
// out (DecodeJSON). It returns the response, whose Content-Type's parameters tell which
// discovery format the server chose.
func (c *Client) GetJSON(ctx context.Context, path, accept string, out any) (*Response, error) {
	resp, err := c.GetWhole(ctx, path, accept)
	if err != nil {
		return nil, err
	}
	if err := c.CheckJSON(path, resp); err != nil {
		return nil, err
	}
	if err := c.DecodeJSON(path, resp.Body, out); err != nil {
		return nil, err
	}
	return resp, nil
}

// CheckJSON turns a non-200, an HTML page or a non-JSON 200 into an Error.
func (c *Client) CheckJSON(path string, resp *Response) error {
	switch {
	case resp.Code >= 300 && resp.Code < 400:
		return RedirectError(c.base, path, resp.Code, resp.Location)
	case resp.Code != http.StatusOK:
		return StatusError(c.base, path, resp.Code, resp.ContentType, resp.Body)
	case IsHTML(resp.ContentType, resp.Body):
		return HTMLError(c.base, path, resp.Body)
	}
	mt, _, err := mime.ParseMediaType(resp.ContentType)
	if err != nil || mt != "application/json" {
		return ContentTypeError(c.base, path, resp.ContentType, "application/json")
	}
	return nil
}

// DecodeJSON decodes body, read from path, into out; its error names the server and path.
func (c *Client) DecodeJSON(path string, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		return DecodeError(c.base, path, len(body), err)
	}
	return nil
}
