
8
PlaceholderPlaceholder*
shape:[*
dtype0
y
StringToHashBucketStrongStringToHashBucketStrongPlaceholder*
key
ÿÿÿÿÿÿÿÿÿ€€€€€€€€@*
num_buckets€€€€€ "ª