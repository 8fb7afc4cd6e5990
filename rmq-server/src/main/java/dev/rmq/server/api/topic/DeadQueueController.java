package dev.rmq.server.api.topic;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.RmqClient;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.server.api.Api;
import dev.rmq.server.api.Payloads;
import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.ArrayList;
import java.util.List;

/**
 * A topic's dead queue: messages whose retries were spent, that could not be decoded, or that a consumer buried.
 * They can be listed, put back to be consumed again, or deleted. A dead message lives in the slot of its slot
 * basis; give {@code slot} (as the listing shows it) or {@code slotBasis} when that basis is not the key.
 */
@RestController
@RequestMapping(Api.V1 + "/topics/{topic}")
public class DeadQueueController {

    private final RmqClient client;
    private final Payloads payloads;

    public DeadQueueController(RmqClient client, Payloads payloads) {
        this.client = client;
        this.payloads = payloads;
    }

    /**
     * Up to {@code count} dead messages, oldest first within each slot and slot after slot; {@code offset} skips
     * that many over the slots in that order. With {@code slot}, only that slot's.
     */
    @GetMapping("/dead")
    public DeadPage list(@PathVariable String topic, @RequestParam(defaultValue = "100") int count,
                         @RequestParam(defaultValue = "0") long offset,
                         @RequestParam(required = false) @Nullable Integer slot) {
        TopicDefinition definition = client.topics().require(topic);
        if (count < 1 || count > RmqDeadQueue.MAX_PAGE || offset < 0) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "a page of the dead queue takes count from 1 to "
                    + RmqDeadQueue.MAX_PAGE + " and offset from 0; was count " + count + ", offset " + offset);
        }
        RmqDeadQueue dead = client.deadQueue();
        if (slot != null) {
            definition.requireSlot(slot);
            List<DeadView> page = dead.list(topic, slot, offset, count).stream()
                    .map(message -> DeadView.of(message, payloads)).toList();
            return new DeadPage(topic, dead.count(topic, slot), offset, page);
        }
        TopicCounts counts = client.inspector().counts(topic);
        List<DeadView> page = new ArrayList<>();
        long skip = offset;
        for (SlotCounts slotCounts : counts.slots()) {
            if (page.size() >= count) {
                break;
            }
            if (skip >= slotCounts.dead()) {
                skip -= slotCounts.dead();
                continue;
            }
            int wanted = (int) Math.min(count - page.size(), slotCounts.dead() - skip);
            dead.list(topic, slotCounts.slot(), skip, wanted).forEach(message -> page.add(DeadView.of(message, payloads)));
            skip = 0;
        }
        return new DeadPage(topic, counts.total().dead(), offset, page);
    }

    /** Puts one dead message back, from attempt 0: due now, or at its priority. */
    @PostMapping("/dead/{key}/requeue")
    public DeadChange requeue(@PathVariable String topic, @PathVariable String key,
                              @RequestParam(required = false) @Nullable Integer slot,
                              @RequestParam(required = false) @Nullable String slotBasis) {
        int at = slotOf(topic, key, slot, slotBasis);
        if (!client.deadQueue().requeue(topic, at, key)) {
            throw notDead(topic, key, at);
        }
        return new DeadChange(topic, key, at, "requeued", 1);
    }

    @PostMapping("/dead:requeue-all")
    public DeadChange requeueAll(@PathVariable String topic) {
        client.topics().require(topic);
        return new DeadChange(topic, null, null, "requeued", client.deadQueue().requeueAll(topic));
    }

    /** Removes one dead message for good. */
    @DeleteMapping("/dead/{key}")
    public DeadChange delete(@PathVariable String topic, @PathVariable String key,
                             @RequestParam(required = false) @Nullable Integer slot,
                             @RequestParam(required = false) @Nullable String slotBasis) {
        int at = slotOf(topic, key, slot, slotBasis);
        if (!client.deadQueue().delete(topic, at, key)) {
            throw notDead(topic, key, at);
        }
        return new DeadChange(topic, key, at, "deleted", 1);
    }

    /** Removes every dead message of the topic for good. */
    @DeleteMapping("/dead")
    public DeadChange purge(@PathVariable String topic) {
        client.topics().require(topic);
        return new DeadChange(topic, null, null, "purged", client.deadQueue().purge(topic));
    }

    /** The slot given, or the one the slot basis (the key by default) routes to from this server's zone. */
    private int slotOf(String topic, String key, @Nullable Integer slot, @Nullable String slotBasis) {
        TopicDefinition definition = client.topics().require(topic);
        if (slot != null) {
            return definition.requireSlot(slot);
        }
        return definition.slotOf(slotBasis != null ? slotBasis : key, client.zone());
    }

    private static ApiException notDead(String topic, String key, int slot) {
        return new ApiException(Problem.NOT_FOUND, "slot " + slot + " of topic '" + topic + "' has no dead message"
                + " with key '" + key + "'; if it was sent with a slot basis other than its key, give slot (as the"
                + " dead-queue listing shows it) or slotBasis");
    }

    /**
     * @param total    dead messages in the topic (or in the slot asked for)
     * @param messages this page of them
     */
    public record DeadPage(String topic, long total, long offset, List<DeadView> messages) {
    }

    /** What an operation on the dead queue did, and to how many messages. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record DeadChange(String topic, @Nullable String key, @Nullable Integer slot, String operation,
                             long messages) {
    }
}
