import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3"
import S3rver from "s3rver"

/*
 * An S3-compatible server (s3rver) in this process, on a free loopback port, with one empty bucket. The AWS
 * SDK finds its credentials through the usual chain: here the environment, set to s3rver's fixed pair.
 */
export const startS3Server = async (bucket: string) => {
  const directory = mkdtempSync(join(tmpdir(), "talab-s3-"))
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory })
  const { port } = await server.run()
  process.env.AWS_ACCESS_KEY_ID = "S3RVER"
  process.env.AWS_SECRET_ACCESS_KEY = "S3RVER"
  const endpoint = `http://127.0.0.1:${port}`
  const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true })
  await client.send(new CreateBucketCommand({ Bucket: bucket }))
  client.destroy()
  return {
    endpoint,
    options: { bucket, region: "us-east-1", endpoint },
    stop: async () => {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    }
  }
}
