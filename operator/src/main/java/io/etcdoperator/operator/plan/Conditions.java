package io.etcdoperator.operator.plan;

/** Condition types and reasons the operator reports. Reasons are CamelCase, as Kubernetes wants. */
public final class Conditions {
  public static final String AVAILABLE = "Available";
  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";

  public static final String QUORUM_HELD = "QuorumHeld";
  public static final String QUORUM_LOST = "QuorumLost";
  public static final String SPLIT_BRAIN = "SplitBrain";
  public static final String BOOTSTRAPPING = "Bootstrapping";
  public static final String INVALID_SPEC = "InvalidSpec";
  public static final String HIBERNATED = "Hibernated";
  public static final String MEMBERS_READY = "AllMembersReady";

  /** Every member a healthy voter, but a member's pod not Ready: not in the client Service yet. */
  public static final String PODS_NOT_READY = "PodsNotReady";

  public static final String MEMBERS_UNREACHABLE = "MembersUnreachable";
  public static final String MEMBERS_HEALTHY = "AllMembersHealthy";
  public static final String SCALING_UP = "ScalingUp";
  public static final String SCALING_DOWN = "ScalingDown";
  public static final String ROLLING_UPDATE = "RollingUpdate";
  public static final String ROLL_STUCK = "RollStuck";
  public static final String UPGRADE_STUCK = "UpgradeStuck";
  public static final String UNSUPPORTED_VERSION = "UnsupportedVersionChange";
  public static final String TLS_MODE_CHANGED = "TlsModeChanged";

  /** The claim a restore reads cannot serve the members ({@link RestoreClaimRules}). */
  public static final String RESTORE_SOURCE_UNUSABLE = "RestoreSourceUnusable";

  /** Taking the backup before an upgrade or scaling to 0 ({@link ChangeBackupRules}). */
  public static final String BACKING_UP_BEFORE_CHANGE = "BackingUpBeforeChange";

  /** That backup failed, and spec.backupBeforeChanges holds the change. */
  public static final String BACKUP_BEFORE_CHANGE_FAILED = "BackupBeforeChangeFailed";

  public static final String MOVING_TO_TLS = "MovingToTls";
  public static final String MOVING_OFF_TLS = "MovingOffTls";
  public static final String CANNOT_REACH_MEMBERS = "CannotReachMembers";
  public static final String CERTIFICATE_INVALID = "CertificateInvalid";
  public static final String ENABLING_AUTH = "EnablingAuth";
  public static final String DISABLING_AUTH = "DisablingAuth";

  /**
   * The condition of the cluster's certificates, present with spec.security.tls: True/Valid,
   * False/Expiring or False/MissingServiceName (warnings, nothing stops), False/CertificateInvalid.
   */
  public static final String CERTIFICATES_READY = "CertificatesReady";

  public static final String CERTIFICATES_VALID = "Valid";
  public static final String CERTIFICATE_EXPIRING = "Expiring";
  public static final String CERTIFICATE_WARNING = "CertificateWarning";
  public static final String WAITING_FOR_MEMBERS = "WaitingForMembers";
  public static final String RECONCILED = "Reconciled";
  public static final String REBUILDING = "Rebuilding";
  public static final String POD_NOT_A_MEMBER = "PodNotAMember";
  public static final String ALARM = "AlarmRaised";
  public static final String MEMBER_NODE_LOST = "MemberNodeLost";
  public static final String MEMBER_NODE_UNREACHABLE = "MemberNodeUnreachable";
  public static final String NO_SPACE = "NoSpace";

  /** etcd raised CORRUPT: the members' data differ; every request is refused meanwhile. */
  public static final String DATA_DIVERGED = "DataDiverged";

  public static final String DEFRAGMENTING = "Defragmenting";
  public static final String EXPANDING_VOLUMES = "ExpandingVolumes";
  public static final String VOLUME_SHRINK_REFUSED = "VolumeShrinkRefused";
  public static final String VOLUME_EXPANSION_REFUSED = "VolumeExpansionRefused";

  /** A fifth condition: whether the operator is paused by the resource's annotation. */
  public static final String PAUSED = "Paused";

  public static final String PAUSED_BY_ANNOTATION = "PausedByAnnotation";
  public static final String NOT_PAUSED = "NotPaused";
  public static final String MAJORITY_DATA_LOST = "MajorityDataLost";
  public static final String RESTORING = "Restoring";
  public static final String RESTORE_FAILED = "RestoreFailed";

  private Conditions() {}
}
