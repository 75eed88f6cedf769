package statusfile

import (
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestSanitizeTitle(t *testing.T) {
	x4095 := strings.Repeat("x", 4095)
	tests := []struct {
		name, raw, want string
	}{
		// The cases of the seeds README, as the published sanitizer
		// handles them and as ours must.
		{"sgr", "\x1b[31mred\x1b[0m", "red"},
		{"sgr newline rlo", "\x1b[31munsafe\x1b[0m\n\u202e title", "unsafe title"},
		{"cursor up keeps text", "\x1b[2Ahello Jim", "hello Jim"},
		{"dcs", "\x1bPpayload\x1b\\ok", "ok"},
		{"unterminated osc", "\x1b]0;title", ""},
		{"8-bit csi", "\u009b31mx", "x"},
		{"osc 8 hyperlink st", "\x1b]8;;https://example.com\x1b\\safe\x1b]8;;\x1b\\", "safe"},
		{"osc 8 hyperlink bel", "\x1b]8;;https://example.com\asafe\x1b]8;;\a", "safe"},
		{"rlo", "a\u202eb", "a b"},
		{"lri", "a\u2066b", "a b"},
		{"zwsp", "a\u200bb", "a b"},
		{"bom", "a\ufeffb", "a b"},
		{"arabic letter mark", "a\u061cb", "a b"},
		{"lrm rlm", "a\u200eb\u200fc", "a b c"},
		{"pdi fsi", "a\u2068b\u2069c", "a b c"},
		{"word joiner", "a\u2060b", "a b"},
		{"zwnj", "a\u200cb", "a b"},
		{"zwj kept", "👩\u200d💻", "👩\u200d💻"},
		{"variation selector kept", "❤\ufe0f", "❤\ufe0f"},
		{"nbsp", "a\u00a0b", "a b"},
		{"line separator", "a\u2028b", "a b"},
		{"paragraph separator", "a\u2029b", "a b"},
		{"tab newline", "a\t\nb", "a b"},
		{"only controls", "\x00\x01\x1f\x7f\u0085", ""},
		{"empty", "", ""},
		{"spaces", "   ", ""},
		{"trim and collapse", "  a   b  ", "a b"},
		{"4096 a", strings.Repeat("a", 4096), strings.Repeat("a", 4096)},
		{"4097 a", strings.Repeat("a", 4097), strings.Repeat("a", 4095)},
		{"split surrogate", x4095 + "👩🏽\u200d💻", x4095},
		{"cut inside zwj sequence", strings.Repeat("x", 4094) + "👩\u200d💻", strings.Repeat("x", 4094)},
		{"accents", "café naïve", "café naïve"},
		{"combining", "e\u0301", "e\u0301"},
		{"cjk", "修复测试", "修复测试"},
		{"flag", "🇫🇷 ok", "🇫🇷 ok"},
		// Beyond the seeds: whole sequences, 8-bit forms, aborts.
		{"esc two-char", "a\x1b7b\x1bcc", "abc"},
		{"esc charset", "a\x1b(Bb", "ab"},
		{"lone esc at end", "abc\x1b", "abc"},
		{"esc before non-ascii", "a\x1bé", "aé"},
		{"csi private params", "\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"},
		{"csi intermediate", "a\x1b[1 qb", "ab"},
		{"csi aborted by control", "a\x1b[3\nb", "a b"},
		{"unterminated csi", "abc\x1b[31", "abc"},
		{"8-bit osc", "a\u009d0;t\u009cb", "ab"},
		{"8-bit dcs st", "a\u0090q\u009cb", "ab"},
		{"sos", "a\x1bXsos\x1b\\b", "ab"},
		{"pm", "a\x1b^pm\x1b\\b", "ab"},
		{"apc", "a\x1b_apc\x1b\\b", "ab"},
		{"dcs ignores bel", "a\x1bPq\ax\x1b\\b", "ab"},
		{"unterminated dcs", "ok\x1bPpayload", "ok"},
		{"c1 other", "a\u0085b\u0084c", "a b c"},
		{"st alone", "a\u009cb", "a b"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"ideographic space", "a\u3000b", "a b"},
		{"del", "a\x7fb", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeTitle(tt.raw)
			if got != tt.want {
				t.Errorf("SanitizeTitle(%q) = %q, want %q", short(tt.raw), short(got), short(tt.want))
			}
			if again := SanitizeTitle(got); again != got {
				t.Errorf("not idempotent: %q then %q", short(got), short(again))
			}
		})
	}
}

func short(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

func TestSanitizeText(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"/home/me/my  project", "/home/me/my  project"},
		{"\x1b[31mpi\x1b[0m", "pi"},
		{"a\tb\nc", "a b c"},
		{"  x  ", "  x  "},
		{"a\u202eb", "a b"},
		{"\x1b]0;t", ""},
		{"a\u00a0b\u3000c", "a b c"}, // other white space: one space each (§7 step 3)
	}
	for _, tt := range tests {
		if got := SanitizeText(tt.raw); got != tt.want {
			t.Errorf("SanitizeText(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// checkSanitized verifies the properties SPEC.md promises of a title.
func checkSanitized(t *testing.T, raw, got string) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("SanitizeTitle(%q) = %q: not valid UTF-8", raw, got)
	}
	if n := len(utf16.Encode([]rune(got))); n > maxTitleUnits {
		t.Fatalf("SanitizeTitle(%q): %d UTF-16 units", raw, n)
	}
	for _, r := range got {
		if isControl(r) || toSpace(r) && r != ' ' {
			t.Fatalf("SanitizeTitle(%q) = %q: contains U+%04X", raw, got, r)
		}
	}
	if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
		t.Fatalf("SanitizeTitle(%q) = %q: spacing not collapsed", raw, got)
	}
	if again := SanitizeTitle(got); again != got {
		t.Fatalf("SanitizeTitle not idempotent on %q: %q then %q", raw, got, again)
	}
}

func FuzzSanitizeTitle(f *testing.F) {
	for _, s := range []string{
		"\x1b[31mred\x1b[0m", "\x1b[2Ahello Jim", "\x1bPpayload\x1b\\ok", "\x1b]0;title",
		"\u009b31mx", "a\u202eb", "👩\u200d💻", strings.Repeat("x", 4095) + "👩🏽\u200d💻",
		strings.Repeat("ab ", 1400), "a\xffb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := SanitizeTitle(raw)
		checkSanitized(t, raw, got)
		for _, max := range []int{1, 7, len(raw) / 2} {
			if a, b := sanitizeCap(raw, max), sanitizeCut(raw, max); a != b {
				t.Fatalf("sanitizeCap(%q, %d) = %q, the general path %q", raw, max, a, b)
			}
		}
		text := SanitizeText(raw)
		for _, r := range text {
			if isControl(r) || toSpace(r) && r != ' ' {
				t.Fatalf("SanitizeText(%q) = %q: contains U+%04X", raw, text, r)
			}
		}
	})
}

func BenchmarkSanitizeTitle(b *testing.B) {
	cases := map[string]string{
		"plain":   "Implement status adapter",
		"unicode": "Réparer les tests 修复测试 👩\u200d💻",
		"hostile": "\x1b[31munsafe\x1b[0m\n\u202e title \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
		"long":    strings.Repeat("déjà vu ", 700),
		"cut":     strings.Repeat("refactor the parser ", 300),
	}
	for name, s := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SanitizeTitle(s)
			}
		})
	}
}

// TestSanitizeCapPlain checks sanitizeCap's shortcuts for plain ASCII
// against the general path, at every cut of titles with spaces, controls
// and non-ASCII text around the cut.
func TestSanitizeCapPlain(t *testing.T) {
	for _, s := range []string{"a", "ab", "a b", "ab cd ef", " ab", "ab  cd", "a b c d e f g", "abc\tdef", "ab é cd", "x y\x1b[1m z", "ab 👩‍💻 cd ef"} {
		for max := 0; max <= len(s)+1; max++ {
			if got, want := sanitizeCap(s, max), sanitizeCut(s, max); got != want {
				t.Errorf("sanitizeCap(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}
