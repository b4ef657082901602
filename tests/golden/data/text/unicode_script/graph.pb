
6
PlaceholderPlaceholder*
dtype0*
shape:
+
UnicodeScriptUnicodeScriptPlaceholder"ª