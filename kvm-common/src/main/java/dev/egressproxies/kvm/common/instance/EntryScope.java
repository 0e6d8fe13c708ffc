package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;

/**
 * The rule that a provider entry acts only on the domains created through it, and the refusal
 * get, delete and create give for a domain of the platform that another entry, or no entry,
 * created.
 *
 * <p>Entries of either KVM backend type may place domains on the same hypervisor. Without this rule
 * each would list the others' domains as its own, {@code egressctl apply} on one entry would delete
 * the others' as orphans, and a create would take over another entry's domain of the same name.
 * Domains defined before the metadata named its entry belong to no entry: they are never listed,
 * so apply never deletes them, and get, delete and create refuse them and say how to remove them
 * by hand. Refusals are PERMANENT and happen before anything is changed.
 */
final class EntryScope {
    private EntryScope() {
    }

    /**
     * Fails the call unless the domain was created through the call's entry.
     *
     * @param metadata the platform's metadata the domain carries
     * @param host     the host the domain is on
     * @param name     the domain's name
     * @throws dev.egressproxies.api.ProviderException PERMANENT, naming the entry that created the
     *                                                 domain, or explaining a domain of no entry
     */
    static void requireThisEntry(InstanceMetadata metadata, HostSettings host, String name, Call call) {
        if (metadata.createdThrough(call.entry())) {
            return;
        }
        boolean create = call.operation() == Operation.CREATE;
        String refused = "domain '" + name + "' on host '" + host.name() + "' ";
        String notDone = switch (call.operation()) {
            case CREATE -> "taken over";
            case DELETE -> "deleted";
            default -> "reported";
        };
        if (metadata.entry().isPresent()) {
            String owner = metadata.entry().get();
            throw call.permanent(refused + "was created through provider entry '" + owner + "', not '" + call.entry()
                    + "', so it is not " + notDone + " through this entry: " + call.operation() + " it through entry '"
                    + owner + "'" + (create ? ", or choose another name" : ""));
        }
        throw call.permanent(refused + "was created by egress-proxies before domains recorded their provider entry, so"
                + " no entry manages it and it is not " + notDone + ": " + (create ? "choose another name, or " : "")
                + "if nothing uses it any more, remove it by hand: " + removalByHand(host, name));
    }

    /**
     * The virsh commands that remove a domain of no entry and its volumes as delete would. Such
     * domains were made when volumes were named after the instance alone, before
     * {@link VolumeNames} added the entry, so these are the names they use.
     */
    private static String removalByHand(HostSettings host, String name) {
        String volumeDelete = "'virsh vol-delete --pool " + host.pool() + " ";
        return "'virsh destroy " + name + "' (if it runs), 'virsh undefine " + name
                + " --managed-save --snapshots-metadata --nvram', " + volumeDelete + name + ".qcow2' and "
                + volumeDelete + name + ".seed.iso'";
    }
}
