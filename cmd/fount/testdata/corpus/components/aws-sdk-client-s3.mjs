import { S3Client, ListBucketsCommand } from "@aws-sdk/client-s3";
export default {
  name: "corpus-s3", version: "0.1.0",
  async run(e) {
    const s3 = new S3Client({ region: "us-east-1", endpoint: e.base, forcePathStyle: true, credentials: { accessKeyId: "AKID", secretAccessKey: "secret" } });
    const r = await s3.send(new ListBucketsCommand({}));
    this.$emit({ buckets: r.Buckets.map((b) => b.Name), owner: r.Owner && r.Owner.DisplayName });
  },
};
