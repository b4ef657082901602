
8
PlaceholderPlaceholder*
dtype0*
shape:[
U
StringToHashBucketFastStringToHashBucketFastPlaceholder*
num_buckets€€€€€ "ª