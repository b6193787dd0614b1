package alert

import (
	"errors"
	"fmt"
	"strings"
)

// Mode says where metrics go.
type Mode string

// The publishing modes.
const (
	// ModeAPI calls PutMetricData; metrics fall back to EMF when the API fails.
	ModeAPI Mode = "api"
	// ModeEMF writes Embedded Metric Format lines to stdout; CloudWatch Logs
	// extracts the metrics. No API call, no IAM permission, no latency.
	ModeEMF Mode = "emf"
	// ModeBoth does both. CloudWatch then receives every value twice, which
	// leaves Maximum, Minimum and Average unchanged but doubles Sum and
	// SampleCount.
	ModeBoth Mode = "both"
	// ModeOff publishes no metrics; findings are still logged.
	ModeOff Mode = "off"
)

// DefaultNamespace is the CloudWatch namespace used when none is configured.
const DefaultNamespace = "HotKeyDetector"

// Limits of the configuration.
const (
	// MaxTop caps Config.Top: each published key is three custom metrics,
	// billed monthly, so a runaway setting must not multiply the bill.
	MaxTop = 100
	// MaxNamespaceLength is CloudWatch's limit on a namespace.
	MaxNamespaceLength = 255
)

// Sentinel errors.
var (
	ErrConfig        = errors.New("alert: invalid configuration")
	ErrInvalidMode   = errors.New("alert: invalid metrics mode")
	ErrInvalidReport = errors.New("alert: invalid report")
)

// Config configures a Publisher.
type Config struct {
	// Namespace of every metric; DefaultNamespace by default. It must follow
	// CloudWatch's rules: 1–255 ASCII characters without control characters,
	// not only spaces, not starting with ':' and not in the reserved "AWS/".
	Namespace string
	// Mode says where metrics go; ModeAPI by default.
	Mode Mode
	// Top is the most flagged keys published per window as key metrics (the
	// most severe, then the heaviest); 0 publishes none. Default 10, at most
	// MaxTop. Findings are logged for every flagged key whatever Top is.
	Top int
	// StorageResolution is 60 (standard, the default) or 1 (high resolution,
	// billed higher and only worth it with windows shorter than a minute).
	StorageResolution int
}

// DefaultConfig returns the configuration used when nothing is set.
func DefaultConfig() Config {
	return Config{
		Namespace:         DefaultNamespace,
		Mode:              ModeAPI,
		Top:               10,
		StorageResolution: 60,
	}
}

// Validate reports the first setting that is out of range.
func (c Config) Validate() error {
	if err := validateNamespace(c.Namespace); err != nil {
		return err
	}
	switch c.Mode {
	case ModeAPI, ModeEMF, ModeBoth, ModeOff:
	default:
		return fmt.Errorf("%w: mode %q: want api, emf, both or off", ErrConfig, c.Mode)
	}
	if c.Top < 0 || c.Top > MaxTop {
		return fmt.Errorf("%w: top %d: want 0 to %d", ErrConfig, c.Top, MaxTop)
	}
	if c.StorageResolution != 1 && c.StorageResolution != 60 {
		return fmt.Errorf("%w: storage resolution %d: want 1 or 60", ErrConfig, c.StorageResolution)
	}
	return nil
}

func validateNamespace(ns string) error {
	switch {
	case ns == "" || len(ns) > MaxNamespaceLength:
		return fmt.Errorf("%w: namespace must be 1 to %d characters, got %d", ErrConfig, MaxNamespaceLength, len(ns))
	case !printableASCII(ns) || strings.TrimSpace(ns) == "":
		return fmt.Errorf("%w: namespace %q must be printable ASCII and not blank", ErrConfig, ns)
	case ns[0] == ':':
		return fmt.Errorf("%w: namespace %q must not start with ':'", ErrConfig, ns)
	case strings.HasPrefix(ns, "AWS/"):
		return fmt.Errorf("%w: namespace %q: AWS/ is reserved for AWS services", ErrConfig, ns)
	}
	return nil
}

// ParseMode reads a mode as HOTKEYS_METRICS spells it: api, emf, both or off,
// in any case. The empty string means the default, ModeAPI, so that an unset
// variable and an empty one agree.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAPI, nil
	case ModeAPI, ModeEMF, ModeBoth, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("%w %q: want api, emf, both or off", ErrInvalidMode, s)
}

// usesAPI and usesEMF say which transports a mode writes to up front.
func (m Mode) usesAPI() bool { return m == ModeAPI || m == ModeBoth }
func (m Mode) usesEMF() bool { return m == ModeEMF || m == ModeBoth }
