package simulate

import (
	"encoding/json"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// StepRuntimeConfig is the --runtime-config an upgrade step gives, read once where the step
// is read (ParseStep, a scenario file): the text as written, which the step's name and the
// scenario's JSON keep, and what it asks for, typed. "default" asks for no --runtime-config.
type StepRuntimeConfig struct {
	text  string
	asked runtimeChoice
	// err says why text is no --runtime-config; validating the step returns it.
	err error
}

// defaultRuntimeConfig, as a step's runtime-config, means "no --runtime-config flag".
const defaultRuntimeConfig = "default"

// ReadStepRuntimeConfig reads text once. A text that is no --runtime-config is kept with
// why (Err): the step's validation returns it, and so does running the step.
func ReadStepRuntimeConfig(text string) *StepRuntimeConfig {
	c := &StepRuntimeConfig{text: text, asked: runtimeChoice{source: sourceDefault}}
	if text != defaultRuntimeConfig {
		c.asked.source = sourceStep
		c.asked.config, c.err = mvp.ParseRuntimeConfig(text)
	}
	return c
}

// String is the text as written.
func (c *StepRuntimeConfig) String() string { return c.text }

// Err says why the text is no --runtime-config (nil: it is one).
func (c *StepRuntimeConfig) Err() error { return c.err }

// MarshalJSON writes the text as written.
func (c StepRuntimeConfig) MarshalJSON() ([]byte, error) { return json.Marshal(c.text) }

// UnmarshalJSON reads a JSON string with ReadStepRuntimeConfig. A value of another type is
// refused as a string field's would be (encoding/json adds the field's name).
func (c *StepRuntimeConfig) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	*c = *ReadStepRuntimeConfig(text)
	return nil
}
