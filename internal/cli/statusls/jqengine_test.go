package statusls

// The in-process tests run --jq with the engine linked, as statusls-jq
// does; tests that run the built binaries check the re-execution.
import _ "github.com/agentstatus/agentstatus/internal/jqrun/gojqrun"
