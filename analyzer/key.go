package analyzer

import "github.com/effectlint/effectlint/effect"

// The identity of an effect is the shared vocabulary of package effect;
// the analyzer's facts carry it under these names.
type (
	// Key is effect.Key.
	Key = effect.Key
	// Destination is effect.Destination.
	Destination = effect.Destination
)
