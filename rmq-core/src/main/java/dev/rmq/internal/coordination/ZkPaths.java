package dev.rmq.internal.coordination;

/**
 * Every znode rmq uses, under a configurable root ({@code /rmq} by default):
 * <pre>
 * {root}/topics/{topic}                  persistent  the definition: type, slotAmount and who registered it first
 * {root}/topics/{topic}/members/{worker} ephemeral   one per live worker (consumer thread)
 * {root}/topics/{topic}/plan             persistent  slot → worker, written by whichever instance sees it stale
 * {root}/topics/{topic}/owners/{slot}    ephemeral   the worker that holds the slot now, and its fencing token
 * {root}/topics/{topic}/controls/{instance} ephemeral the job controls of the topic in one running application
 * </pre>
 */
public final class ZkPaths {

    private final String root;

    public ZkPaths(String root) {
        if (root == null || !root.startsWith("/") || root.length() < 2 || root.endsWith("/") || root.contains("//")) {
            throw new IllegalArgumentException("ZooKeeper root must be an absolute path like /rmq, without a trailing"
                    + " slash, was " + root);
        }
        this.root = root;
    }

    public String root() {
        return root;
    }

    public String topic(String topic) {
        return root + "/topics/" + topic;
    }

    public String members(String topic) {
        return topic(topic) + "/members";
    }

    public String member(String topic, String worker) {
        return members(topic) + "/" + worker;
    }

    public String plan(String topic) {
        return topic(topic) + "/plan";
    }

    public String controls(String topic) {
        return topic(topic) + "/controls";
    }

    public String controls(String topic, String instance) {
        return controls(topic) + "/" + instance;
    }

    public String owners(String topic) {
        return topic(topic) + "/owners";
    }

    public String owner(String topic, int slot) {
        return owners(topic) + "/" + slot;
    }
}
