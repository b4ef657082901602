
8
PlaceholderPlaceholder*
dtype0*
shape:[
y
StringToHashBucketStrongStringToHashBucketStrongPlaceholder*
num_buckets€€€€€ *
key
ÿÿÿÿÿÿÿÿÿ€€€€€€€€@"ª