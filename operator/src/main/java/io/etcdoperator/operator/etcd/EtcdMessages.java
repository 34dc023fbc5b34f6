package io.etcdoperator.operator.etcd;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.Member;
import io.etcd.jetcd.api.MemberRemoveRequest;
import io.etcd.jetcd.api.MemberRemoveResponse;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import java.util.List;
import java.util.Optional;

/**
 * Translation between etcd's protobuf messages (as compiled into jetcd) and this package's records,
 * plus the one call jetcd 0.8.5 lacks.
 */
final class EtcdMessages {

  /**
   * {@code etcdserverpb.Cluster/MemberPromote}. Its request ({@code uint64 ID = 1}) and response
   * ({@code header = 1; repeated Member members = 2}) have exactly the fields of MemberRemove's, so
   * those messages serve as its wire format.
   */
  static final MethodDescriptor<MemberRemoveRequest, MemberRemoveResponse> MEMBER_PROMOTE =
      MethodDescriptor.<MemberRemoveRequest, MemberRemoveResponse>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(
              MethodDescriptor.generateFullMethodName("etcdserverpb.Cluster", "MemberPromote"))
          .setRequestMarshaller(ProtoUtils.marshaller(MemberRemoveRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(MemberRemoveResponse.getDefaultInstance()))
          .build();

  // Fields etcd 3.4 added to StatusResponse after the ones jetcd 0.8.5 compiled in; protobuf
  // keeps them as unknown fields, and they are read from there.
  static final int STATUS_RAFT_APPLIED_INDEX = 7;
  static final int STATUS_ERRORS = 8;
  static final int STATUS_DB_SIZE_IN_USE = 9;
  static final int STATUS_IS_LEARNER = 10;

  private EtcdMessages() {}

  static EtcdStatus status(String endpoint, StatusResponse r) {
    UnknownFieldSet extra = r.getUnknownFields();
    return new EtcdStatus(
        endpoint,
        Optional.empty(),
        r.getHeader().getClusterId(),
        r.getHeader().getMemberId(),
        r.getLeader(),
        r.getRaftTerm(),
        r.getRaftIndex(),
        varint(extra, STATUS_RAFT_APPLIED_INDEX),
        varint(extra, STATUS_IS_LEARNER) != 0,
        r.getVersion(),
        r.getDbSize(),
        varint(extra, STATUS_DB_SIZE_IN_USE),
        strings(extra, STATUS_ERRORS),
        r.getHeader().getRevision());
  }

  static EtcdMemberList memberList(String endpoint, ResponseHeader header, List<Member> members) {
    return new EtcdMemberList(
        endpoint,
        header.getClusterId(),
        header.getMemberId(),
        members.stream().map(EtcdMessages::member).toList());
  }

  static EtcdMember member(Member m) {
    return new EtcdMember(
        m.getID(), m.getName(), m.getPeerURLsList(), m.getClientURLsList(), m.getIsLearner());
  }

  static List<Alarm> alarms(AlarmResponse r) {
    return r.getAlarmsList().stream()
        .map(
            a ->
                new Alarm(
                    a.getMemberID(),
                    switch (a.getAlarmValue()) {
                      case 1 -> "NOSPACE";
                      case 2 -> "CORRUPT";
                      default -> "ALARM_" + a.getAlarmValue();
                    }))
        .toList();
  }

  /**
   * etcd's number of an alarm type ({@code NOSPACE} 1, {@code CORRUPT} 2): jetcd's copy of etcd's
   * protocol names only NOSPACE, so a CORRUPT alarm is known here by its number.
   */
  static int alarmNumber(String type) {
    return switch (type) {
      case "NOSPACE" -> 1;
      case "CORRUPT" -> 2;
      default -> {
        if (type.startsWith("ALARM_")) {
          yield Integer.parseInt(type.substring("ALARM_".length()));
        }
        throw new IllegalArgumentException("no etcd alarm is called " + type);
      }
    };
  }

  private static long varint(UnknownFieldSet fields, int number) {
    if (!fields.hasField(number)) {
      return 0;
    }
    List<Long> values = fields.getField(number).getVarintList();
    return values.isEmpty() ? 0 : values.get(values.size() - 1);
  }

  private static List<String> strings(UnknownFieldSet fields, int number) {
    if (!fields.hasField(number)) {
      return List.of();
    }
    return fields.getField(number).getLengthDelimitedList().stream()
        .map(ByteString::toStringUtf8)
        .toList();
  }
}
