package dev.rmq.samples.merchanttasks;

import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.samples.SendResult;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/**
 * Queues merchant tasks by priority. The same task for the same merchant sent twice is one task (its key
 * is derived from the payload), which takes the latest priority.
 */
@RestController
@RequestMapping("/merchant-tasks")
public class MerchantTaskController {

    private final RmqProducer producer;

    public MerchantTaskController(RmqProducer producer) {
        this.producer = producer;
    }

    /** One task: {@code POST /merchant-tasks?merchant=m-7&task=sync-catalog&keyAccount=true}. */
    @PostMapping
    public SendResult add(@RequestParam String merchant, @RequestParam String task,
                          @RequestParam(defaultValue = "false") boolean keyAccount) {
        return SendResult.of(producer.send(message(new MerchantTask(merchant, task, keyAccount))));
    }

    /**
     * Six tasks in one batch, regular and key-account merchants interleaved, so that the log shows the key
     * accounts served first: {@code POST /merchant-tasks/demo}.
     */
    @PostMapping("/demo")
    public List<SendResult> demo() {
        List<MerchantTask> tasks = List.of(
                new MerchantTask("m-101", "sync-catalog", false),
                new MerchantTask("m-7", "sync-catalog", true),
                new MerchantTask("m-102", "export-orders", false),
                new MerchantTask("m-8", "export-orders", true),
                new MerchantTask("m-103", "rebuild-search-index", false),
                new MerchantTask("m-9", "rebuild-search-index", true));
        return producer.sendAll(tasks.stream().map(MerchantTaskController::message).toList()).stream()
                .map(SendResult::of).toList();
    }

    private static OutgoingMessage message(MerchantTask task) {
        return OutgoingMessage.priority("merchant-tasks", task, task.priority());
    }
}
