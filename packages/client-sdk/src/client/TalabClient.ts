import { RealtimeClient, type RealtimeOptions } from "../realtime/RealtimeClient.js"
import { type TalabClientOptions, TalabRestClient } from "./TalabRestClient.js"

/**
 * The typed Talab API client: every REST endpoint (see {@link TalabRestClient}) and the realtime chat.
 *
 * @example
 * const talab = createTalabClient({ baseUrl: "https://api.talab.sa", language: "en" })
 * await talab.auth.requestOtp("+966501234567")
 * await talab.auth.signIn({ phoneNumber: "+966501234567", otpCode: "123456" })
 * const { data } = await talab.GET("/requests/{id}", { params: { path: { id } } })
 * const live = talab.realtime()
 */
export class TalabClient extends TalabRestClient {
  /**
   * A realtime (WebSocket) client on this client's session: it authenticates with the stored access
   * token, refreshes it when the server refuses it, and resumes every conversation by `seq` after a reconnect.
   */
  realtime(options: RealtimeOptions = {}): RealtimeClient {
    return new RealtimeClient(
      {
        webSocketUrl: this.webSocketUrl,
        accessToken: () => this.session.accessToken(),
        renewAccessToken: (rejected) => this.session.renew(rejected),
        messagesBefore: async (conversationId, before, limit) => {
          const { data } = await this.GET("/conversations/{id}/messages", {
            params: { path: { id: conversationId }, query: before === undefined ? { limit } : { before, limit } }
          })
          return data
        },
        messagesAfter: async (conversationId, afterSeq, limit) => {
          const { data } = await this.GET("/conversations/{id}/messages", {
            params: { path: { id: conversationId }, query: { after_seq: afterSeq, limit } }
          })
          return data
        },
        onSignedOut: (listener) => this.on("signedOut", listener),
        language: () => this.language
      },
      options
    )
  }
}

/** Creates a {@link TalabClient}. */
export const createTalabClient = (options: TalabClientOptions): TalabClient => new TalabClient(options)
