
3
ConstConst*
valueBBa*
dtype0
\
StringToHashBucketStrongStringToHashBucketStrongConst*
key
*
num_buckets"ª