
’
skipgramSkipgram*

batch_size*2
filename&$/nonexistent/dfx_skipgram_corpus.txt*
	min_count*
	subsample%oƒ:*
window_size"