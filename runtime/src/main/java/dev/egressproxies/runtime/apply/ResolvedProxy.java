package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.CreateRequest;

/**
 * A desired proxy checked and ready to plan: its entry and the create request it stands for.
 *
 * @param entry   the provider entry
 * @param request the request, validated, with cloud-init read and a UID chosen
 */
public record ResolvedProxy(String entry, CreateRequest request) {
}
