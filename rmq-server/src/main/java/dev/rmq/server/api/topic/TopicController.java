package dev.rmq.server.api.topic;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.RmqClient;
import dev.rmq.admin.ClearReport;
import dev.rmq.admin.ClearScope;
import dev.rmq.admin.PauseState;
import dev.rmq.inspect.PeekCursor;
import dev.rmq.inspect.PeekPage;
import dev.rmq.inspect.RmqInspector;
import dev.rmq.server.api.Api;
import dev.rmq.server.api.MessageView;
import dev.rmq.server.api.Payloads;
import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import dev.rmq.server.pull.ServerPuller;
import dev.rmq.server.security.ApiKeyFilter;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The configured topics: their definitions, where their messages are, the next messages in consume order, and
 * pausing and resuming them for every consumer at once. Topics are defined in the configuration, not here.
 */
@RestController
@RequestMapping(Api.V1 + "/topics")
public class TopicController {

    private static final Logger log = LoggerFactory.getLogger(TopicController.class);

    private final RmqClient client;
    private final ServerPuller puller;
    private final Payloads payloads;

    public TopicController(RmqClient client, ServerPuller puller, Payloads payloads) {
        this.client = client;
        this.puller = puller;
        this.payloads = payloads;
    }

    @GetMapping
    public TopicsView topics() {
        Map<String, Set<Integer>> owned = puller.ownedSlots();
        return new TopicsView(client.topics().all().stream()
                .map(topic -> TopicView.of(topic, owned.getOrDefault(topic.name(), Set.of()).size())).toList());
    }

    @GetMapping("/{topic}")
    public TopicView topic(@PathVariable String topic) {
        TopicDefinition definition = client.topics().require(topic);
        return TopicView.of(definition, puller.ownedSlots().getOrDefault(topic, Set.of()).size());
    }

    @GetMapping("/{topic}/counts")
    public CountsView counts(@PathVariable String topic) {
        client.topics().require(topic);
        return CountsView.of(client.inspector().counts(topic));
    }

    /**
     * The next waiting messages in the order consumers take them: earliest due first, or highest priority first,
     * over every slot, as one puller holding every slot takes them. By offset, {@code offset + count} may reach
     * {@value RmqInspector#MAX_PAGE}; the first page, and every page by {@code cursor} or {@code order}, give the
     * cursor of the next page as {@code next}, with no depth limit.
     */
    @GetMapping("/{topic}/peek")
    public PeekView peek(@PathVariable String topic, @RequestParam(defaultValue = "10") int count,
                         @RequestParam(required = false) @Nullable Integer offset,
                         @RequestParam(required = false) @Nullable String cursor,
                         @RequestParam(required = false) @Nullable String order) {
        TopicDefinition definition = client.topics().require(topic);
        if (count < 1 || count > RmqInspector.MAX_PAGE) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "peek takes count from 1 to " + RmqInspector.MAX_PAGE
                    + "; was " + count);
        }
        if (cursor != null || order != null) {
            if (offset != null) {
                throw new ApiException(Problem.INVALID_ARGUMENT, "offset goes with neither cursor nor order: a cursor"
                        + " says where its page starts");
            }
            PeekPage page = client.inspector().peek(topic, start(cursor, order), count);
            return new PeekView(topic, null, views(page.messages(), definition), token(page));
        }
        int from = offset == null ? 0 : offset;
        if (from < 0 || from + count > RmqInspector.MAX_PAGE) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "peek takes count from 1 and offset from 0, with offset"
                    + " + count at most " + RmqInspector.MAX_PAGE + "; was count " + count + ", offset " + from
                    + "; to go deeper, page on with the first page's next cursor");
        }
        if (from == 0) {
            // the same page as by offset, with the cursor of the next
            PeekPage page = client.inspector().peek(topic, PeekCursor.first(), count);
            return new PeekView(topic, 0, views(page.messages(), definition), token(page));
        }
        return new PeekView(topic, from, views(client.inspector().peek(topic, from, count), definition), null);
    }

    private static PeekCursor start(@Nullable String cursor, @Nullable String order) {
        try {
            return PeekCursor.of(cursor, order);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.INVALID_ARGUMENT, Objects.requireNonNullElse(e.getMessage(), "bad cursor"));
        }
    }

    private List<MessageView> views(List<StoredMessage> messages, TopicDefinition definition) {
        return messages.stream().map(message -> MessageView.of(message, definition.type(), payloads)).toList();
    }

    private static @Nullable String token(PeekPage page) {
        PeekCursor next = page.next();
        return next == null ? null : next.token();
    }

    /** Stops every consumer of the topic, in every application, from taking messages; sends are still accepted. */
    @PostMapping("/{topic}/pause")
    public PauseView pause(@PathVariable String topic) {
        client.topics().require(topic);
        return PauseView.of(client.admin().pause(topic));
    }

    @PostMapping("/{topic}/resume")
    public PauseView resume(@PathVariable String topic) {
        client.topics().require(topic);
        return PauseView.of(client.admin().resume(topic));
    }

    /**
     * Removes every waiting and parked message of the topic, each slot in one atomic step; with {@code dead=true} the
     * dead queue as well. Deliveries in flight end as usual. The caller's API key name goes to the log with what the
     * clear removed.
     */
    @PostMapping("/{topic}/clear")
    public ClearView clear(@PathVariable String topic, @RequestParam(defaultValue = "false") boolean dead,
                           HttpServletRequest request) {
        client.topics().require(topic);
        Object caller = request.getAttribute(ApiKeyFilter.CALLER);
        log.info("topic {}: clear{} asked over HTTP by {} from {}", topic, dead ? " with the dead queue" : "",
                caller != null ? "API key '" + caller + "'" : "a caller without an API key", request.getRemoteAddr());
        return ClearView.of(client.admin().clear(topic, dead ? ClearScope.WAITING_AND_DEAD : ClearScope.WAITING));
    }

    public record TopicsView(List<TopicView> topics) {
    }

    /** What a clear removed: waiting, parked and dead messages, and all of them. */
    public record ClearView(String topic, long waiting, long parked, long dead, long total) {

        static ClearView of(ClearReport report) {
            return new ClearView(report.topic(), report.waiting(), report.parked(), report.dead(), report.total());
        }
    }

    /** @param offset the offset asked for; null for a page by cursor. @param next the next page's cursor; null at the end */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PeekView(String topic, @Nullable Integer offset, List<MessageView> messages, @Nullable String next) {
    }

    /** @param state {@code running}, {@code paused}, or {@code partly paused (n of m slots)}: then repeat the call */
    public record PauseView(String topic, String state, int pausedSlots, int slotAmount) {

        static PauseView of(PauseState state) {
            return new PauseView(state.topic(), state.describe(), state.pausedSlots(), state.slotAmount());
        }
    }
}
