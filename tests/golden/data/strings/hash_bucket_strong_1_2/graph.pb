
8
PlaceholderPlaceholder*
dtype0*
shape:[
h
StringToHashBucketStrongStringToHashBucketStrongPlaceholder*
num_buckets€€€€€ *
key
"ª