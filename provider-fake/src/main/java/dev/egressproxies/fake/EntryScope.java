package dev.egressproxies.fake;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.fake.state.StoredInstance;

/**
 * The rule that a fake provider entry acts only on the instances created through it, and the
 * refusal get, delete and create give for an instance that another entry, or no entry, created.
 *
 * <p>Entries pointed at one state file share its instances the way KVM entries share a hypervisor.
 * Without this rule each would list the others' instances as its own, {@code egressctl apply} on
 * one entry would delete the others' as orphans, and a create would take over another entry's
 * instance of the same name. Instances recorded before the state file kept entries belong to no
 * entry: they are never listed, and get, delete and create refuse them and say how to remove or
 * hand them over by editing the file. Refusals are PERMANENT and happen before anything changes.
 */
final class EntryScope {
    private final String entry;
    private final String location;

    /**
     * @param entry    the entry's name
     * @param location where its instances are kept, for messages
     */
    EntryScope(String entry, String location) {
        this.entry = entry;
        this.location = location;
    }

    /** Whether the entry lists {@code instance}. */
    boolean lists(StoredInstance instance) {
        return instance.createdThrough(entry);
    }

    /**
     * Fails the call unless {@code instance}, which this platform created, was created through this
     * entry.
     *
     * @throws ProviderException PERMANENT, naming the entry that created it, or explaining an
     *                           instance of no entry
     */
    void requireThisEntry(StoredInstance instance, Operation operation) {
        if (instance.createdThrough(entry)) {
            return;
        }
        boolean create = operation == Operation.CREATE;
        String notDone = switch (operation) {
            case CREATE -> "taken over";
            case DELETE -> "deleted";
            default -> "reported";
        };
        if (!instance.ofNoEntry()) {
            throw new ProviderException(ErrorKind.PERMANENT, operation, entry, instance.id(), "this instance was"
                    + " created through provider entry '" + instance.entry() + "', not '" + entry + "', so it is not "
                    + notDone + " through this entry: " + operation + " it through entry '" + instance.entry() + "'"
                    + (create ? ", or choose another name" : ""));
        }
        throw new ProviderException(ErrorKind.PERMANENT, operation, entry, instance.id(), "this instance was recorded"
                + " in " + location + " before the fake provider kept the entry of each instance, so no entry"
                + " manages it and it is not " + notDone + ": " + (create ? "choose another name, or " : "")
                + "while no egressctl uses that file, remove the record whose \"id\" is \"" + instance.id()
                + "\" from its \"instances\" if nothing uses the instance any more, or set the record's \"entry\" to"
                + " the name of the entry that should manage it");
    }
}
