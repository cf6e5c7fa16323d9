package yamljson

// Scalars: a value's text, plain or quoted, written as the JSON string or number sigs.k8s.io/yaml
// would make of it — or declined.

// value writes the scalar that starts with first, the rest of the current line, and goes on
// over the following lines indented more than owner (go-yaml folds long scalars at a space
// past column 80), then moves past them.
func (p *parser) value(first []byte, owner int) bool {
	p.advance()
	if p.next() <= owner {
		return p.scalar(first)
	}
	v := append([]byte(nil), first...)
	plain := first[0] != '"' && first[0] != '\''
	if !plain && quotedEnd(first) != -1 {
		return false // closed on its first line, yet more lines follow
	}
	for p.next() > owner {
		if p.cur.afterSkipped || (plain && !continuesPlain(p.text())) {
			return false
		}
		if first[0] == '"' && escapedBreak(v) {
			v = v[:len(v)-1] // "\" at the end of a line: the break is not content
		} else {
			v = append(v, ' ') // a folded break is one space
		}
		v = append(v, p.text()...)
		p.advance()
	}
	if !plain && quotedEnd(v) != len(v) {
		return false
	}
	return p.scalar(v)
}

// escapedBreak reports whether a double-quoted line ends in an unescaped backslash.
func escapedBreak(v []byte) bool {
	n := 0
	for i := len(v) - 1; i >= 0 && v[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// continuesPlain reports whether a line can only be the continuation of a folded plain
// scalar: it is not a comment and holds no ": " or " #". (go-yaml folds a long plain scalar at
// any space, so the line may start with any character the scalar holds: a quote, a dash.)
func continuesPlain(t []byte) bool {
	if t[0] == '#' {
		return false
	}
	for i := 1; i < len(t); i++ {
		if (t[i] == '#' && t[i-1] == ' ') || (t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ')) {
			return false
		}
	}
	return true
}

// scalar writes a value held in v.
func (p *parser) scalar(v []byte) bool {
	switch v[0] {
	case '"':
		return quotedEnd(v) == len(v) && p.doubleQuoted(v)
	case '\'':
		return quotedEnd(v) == len(v) && p.singleQuoted(v)
	}
	switch string(v) {
	case "{}", "[]", "null", "true", "false":
		p.out = append(p.out, v...)
		return true
	case "~", "Null", "NULL":
		p.out = append(p.out, "null"...)
		return true
	}
	if decimal(v) || decimalFraction(v) {
		p.out = append(p.out, v...)
		return true
	}
	if !plainString(v) {
		return false
	}
	p.str(v)
	return true
}

// decimal reports whether v is an integer go-yaml reads as the same decimal number JSON does:
// no sign but '-', no leading zero (YAML 1.1 reads 010 as octal), no '_', at most 18 digits.
func decimal(v []byte) bool {
	d := v
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || (d[0] == '0' && (len(d) > 1 || len(v) > 1)) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// decimalFraction reports whether v is a number with a fraction that go-yaml reads as the float
// JSON reads it as: -?(0|[1-9][0-9]*)\.[0-9]+ with an optional exponent, written the same in both
// languages (no '+' sign, no leading '.', no '_', no .inf or .nan), at most 32 characters.
func decimalFraction(v []byte) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
			n++
		}
		return n
	}
	start := i
	n := digits()
	if len(v) > 32 || n == 0 || (n > 1 && v[start] == '0') || i == len(v) || v[i] != '.' {
		return false
	}
	i++
	if digits() == 0 {
		return false
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}

// yaml11Keyword reports whether a plain scalar is one go-yaml v2 resolves to a boolean or null
// (a switch, not a map: a map literal would be built at every start-up).
func yaml11Keyword(v []byte) bool {
	if len(v) > 5 {
		return false
	}
	switch string(v) { // no allocation: the compiler compares the bytes in place
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
		"n", "N", "no", "No", "NO", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL":
		return true
	}
	return false
}

// plainString reports whether an unquoted scalar is certainly the string it spells: it starts
// with a letter or '/', holds no " #" (a comment), no ": " and no final ':' (a mapping), and is
// not a YAML 1.1 keyword; or it is an address such as 127.0.0.1:6443 (addressLike). Numbers,
// timestamps, .inf and the like all start otherwise.
func plainString(v []byte) bool {
	c := v[0]
	if v[len(v)-1] == ' ' {
		return false // "key :": YAML drops the space
	}
	if c >= '0' && c <= '9' {
		return addressLike(v)
	}
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/') {
		return false
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '#':
			if v[i-1] == ' ' {
				return false
			}
		case ':':
			if i+1 == len(v) || v[i+1] == ' ' {
				return false
			}
		}
	}
	return !yaml11Keyword(v)
}

// str writes s as a JSON string; s is printable ASCII (split checked), so only '"' and '\\'
// need escaping, and runs without them are copied whole.
func (p *parser) str(s []byte) {
	p.out = append(p.out, '"')
	start := 0
	for i, c := range s {
		if c == '"' || c == '\\' {
			p.out = append(append(p.out, s[start:i]...), '\\', c)
			start = i + 1
		}
	}
	p.out = append(append(p.out, s[start:]...), '"')
}

func (p *parser) singleQuoted(v []byte) bool {
	p.out = append(p.out, '"')
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		if c == '\'' {
			i++ // '' is one quote
		}
		if c == '"' || c == '\\' {
			p.out = append(p.out, '\\')
		}
		p.out = append(p.out, c)
	}
	p.out = append(p.out, '"')
	return true
}

// doubleQuoted writes a double-quoted YAML scalar as JSON, translating the escapes both
// languages share and declining the others (\x, \u beyond ASCII control, \N, \L, …).
func (p *parser) doubleQuoted(v []byte) bool {
	p.out = append(p.out, '"')
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		if c != '\\' {
			p.out = append(p.out, c)
			continue
		}
		i++
		switch v[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			p.out = append(p.out, '\\', v[i])
		case '0':
			p.out = append(p.out, `\u0000`...)
		case 'a':
			p.out = append(p.out, `\u0007`...)
		case 'v':
			p.out = append(p.out, `\u000b`...)
		case 'e':
			p.out = append(p.out, `\u001b`...)
		case ' ':
			p.out = append(p.out, ' ')
		default:
			return false
		}
	}
	p.out = append(p.out, '"')
	return true
}

// addressLike reports whether a scalar that starts with a digit is a string to go-yaml v2 for
// certain: made of digits, letters, '.', ':' and '/' only, with no '-' (every timestamp has one)
// and no '_' (go-yaml drops it before parsing numbers), and with a ':' not followed by a space or
// two dots, which no integer, float or hexadecimal float go-yaml accepts can hold. IP addresses
// and host:port pairs are written this way.
func addressLike(v []byte) bool {
	colons, dots := 0, 0
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '/':
		case c == '.':
			dots++
		case c == ':':
			if i+1 == len(v) {
				return false
			}
			colons++
		default:
			return false
		}
	}
	return colons > 0 || dots > 1
}
