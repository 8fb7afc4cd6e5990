package dev.rmq.inspect;

import dev.rmq.producer.StoredMessage;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * One page of a paged peek of a whole topic.
 *
 * @param messages the page, in the cursor's order
 * @param next     where the next page goes on from; null when this page reached the end
 */
public record PeekPage(List<StoredMessage> messages, @Nullable PeekCursor next) {

    public PeekPage {
        messages = List.copyOf(messages);
    }
}
