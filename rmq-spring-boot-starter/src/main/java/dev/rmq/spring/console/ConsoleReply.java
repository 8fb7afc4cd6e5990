package dev.rmq.spring.console;

import java.util.Map;

/**
 * The console's answer, for the web stack to send: its status, content type, headers and body.
 *
 * @param headers headers to set, the security headers among them
 */
record ConsoleReply(int status, String contentType, Map<String, String> headers, byte[] body) {
}
