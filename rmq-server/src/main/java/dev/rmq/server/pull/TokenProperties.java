package dev.rmq.server.pull;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The delivery tokens the server hands out.
 *
 * @param secret The key that signs delivery tokens, at least 32 bytes, the same on every server behind one load
 *               balancer: a token from any of them is then settled by any other. Unset, each server draws its own,
 *               and settles only the tokens it issued. Keep it as you would a password.
 */
@ConfigurationProperties("rmq.server.tokens")
public record TokenProperties(@Nullable String secret) {

    public TokenProperties {
        if (secret != null && !secret.isEmpty()) {
            DeliveryTokens.shared(secret);
        }
    }

    /** The tokens this configuration signs. */
    DeliveryTokens tokens() {
        return secret == null || secret.isEmpty() ? DeliveryTokens.local() : DeliveryTokens.shared(secret);
    }

    @Override
    public String toString() {
        return "TokenProperties[secret=" + (secret == null || secret.isEmpty() ? "unset" : "(set)") + "]";
    }
}
