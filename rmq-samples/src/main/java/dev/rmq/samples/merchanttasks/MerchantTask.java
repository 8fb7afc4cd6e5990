package dev.rmq.samples.merchanttasks;

/**
 * A task to run for a merchant; tasks of key-account merchants go first.
 *
 * @param merchantId the merchant
 * @param task       what to do, e.g. sync-catalog
 * @param keyAccount whether the merchant is a key account
 */
public record MerchantTask(String merchantId, String task, boolean keyAccount) {

    static final long KEY_ACCOUNT_PRIORITY = 1000;
    static final long REGULAR_PRIORITY = 100;
    /** The tasks the worker runs. */
    static final java.util.List<String> KNOWN = java.util.List.of("sync-catalog", "export-orders",
            "rebuild-search-index");

    long priority() {
        return keyAccount ? KEY_ACCOUNT_PRIORITY : REGULAR_PRIORITY;
    }
}
