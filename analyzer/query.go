package analyzer

import "fmt"

// IntentSpec is an intent named on the command line, for a task that has
// no history yet (or wants to act on another key than its last intent).
type IntentSpec struct {
	Key           string
	Destination   Destination
	File          string // content to hash
	SHA256        string
	Authorization string
}

// Empty reports whether nothing was given.
func (s IntentSpec) Empty() bool {
	return s.Key == "" && s.Destination == (Destination{}) && s.File == "" && s.SHA256 == ""
}

// Compute returns the key the spec names.
func (s IntentSpec) Compute() (Key, error) {
	if s.Key != "" {
		if s.Destination != (Destination{}) || s.File != "" || s.SHA256 != "" {
			return Key{}, fmt.Errorf("give either --key or a destination with content, not both")
		}
		return ParseKey(s.Key)
	}
	if s.Destination == (Destination{}) {
		return Key{}, fmt.Errorf("no destination: give --destination PROVIDER/ID or --title TITLE")
	}
	sha := s.SHA256
	switch {
	case s.File != "" && s.SHA256 != "":
		return Key{}, fmt.Errorf("give either --file or --sha256, not both")
	case s.File != "":
		h, err := HashFile(s.File)
		if err != nil {
			return Key{}, fmt.Errorf("content: %v", err)
		}
		sha = h
	case sha == "":
		return Key{}, fmt.Errorf("no content: give --file F or --sha256 H")
	}
	return NewKey(s.Destination, sha)
}

// Ask builds the query of `check`: may task proceed at checkpoint? The
// intent is spec when given, else the task's latest (or inherited) intent.
func (f *Facts) Ask(task, checkpoint string, spec IntentSpec) *Query {
	q := &Query{Task: task, Checkpoint: checkpoint}
	t := f.Tasks[task]
	q.TaskKnown = t != nil && t.History
	if !spec.Empty() {
		q.IntentGiven = true
		k, err := spec.Compute()
		if err != nil {
			q.KeyError = err.Error()
			return q
		}
		q.Key, q.Authorization = k.String(), spec.Authorization
	} else {
		var in *Intent
		if t != nil {
			if n := len(t.Intents); n > 0 {
				in = &t.Intents[n-1]
			} else {
				in = t.InheritedIntent
			}
		}
		switch {
		case in == nil:
			q.KeyError = "the task declares no intent and none was given"
			return q
		case in.KeyError != "":
			q.KeyError = in.KeyError
			return q
		}
		q.Key, q.Authorization = in.Key, in.Authorization
	}
	q.Scope = ScopeOriginal
	if q.Authorization != "" {
		q.Scope = q.Authorization
	}
	q.ScopeID = q.Key + "#" + q.Scope
	return q
}
