package sqlfn

import "github.com/spanload/spanload/localspanner/value"

// udfParseJSON is PARSE_JSON(text, wide_number_mode=>mode): NULL for a NULL argument,
// else the text as normalized JSON. Errors are OUT_OF_RANGE in ZetaSQL's words
// (reference implementation, ParseJsonFunction): "Invalid `wide_number_mode`
// specified for PARSE_JSON: ..." and "Invalid input to PARSE_JSON: ...".
func udfParseJSON(text, mode any) (any, error) {
	if null(text) || null(mode) {
		return nil, nil
	}
	m, _ := asText(mode)
	if m != "exact" && m != "round" {
		return nil, rtErr("Invalid `wide_number_mode` specified for PARSE_JSON: %s", m)
	}
	s, _ := asText(text)
	out, err := value.ParseJSON(s, m == "round")
	if err != nil {
		return nil, rtErr("Invalid input to PARSE_JSON: %v", err)
	}
	return out, nil
}
