
6
PlaceholderPlaceholder*
shape:*
dtype0
k
AudioSpectrogramAudioSpectrogramPlaceholder*
stride(*
magnitude_squared(*
window_size2"ª