package scenarios

import (
	"errors"
	"io"
)

// Report is what validating scenario files found: the summary of each
// valid one, and every error and warning as FILE:LINE: message.
type Report struct {
	Scenarios []Summary   `json:"scenarios"`
	Errors    []FileIssue `json:"errors"`
	Warnings  []FileIssue `json:"warnings"`
	// Failures are the load errors, one per invalid file, in file order.
	Failures []error `json:"-"`
}

// FileIssue is one problem in a file.
type FileIssue struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// ValidateFiles loads every file strictly and reports what it found.
func ValidateFiles(files []string) Report {
	r := Report{Scenarios: []Summary{}, Errors: []FileIssue{}, Warnings: []FileIssue{}}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			var es Errors
			if errors.As(err, &es) {
				for _, e := range es {
					r.Errors = append(r.Errors, FileIssue{e.File, e.Line, e.Msg})
				}
			} else {
				r.Errors = append(r.Errors, FileIssue{File: f, Message: err.Error()})
			}
			r.Failures = append(r.Failures, err)
			continue
		}
		r.Scenarios = append(r.Scenarios, s.Summary())
		for _, w := range s.Warnings {
			r.Warnings = append(r.Warnings, FileIssue{w.File, w.Line, w.Msg})
		}
	}
	return r
}

// WriteText prints every valid scenario's summary.
func (r Report) WriteText(w io.Writer) error {
	for i, s := range r.Scenarios {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := s.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}
