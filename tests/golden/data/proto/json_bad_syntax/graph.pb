
/
jsonPlaceholder*
dtype0*
shape:
,
DecodeJSONExampleDecodeJSONExamplejson"ª