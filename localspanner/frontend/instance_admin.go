package frontend

import (
	"context"
	"strings"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	instpb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/storage"
)

// instanceAdmin serves google.spanner.admin.instance.v1.InstanceAdmin.
type instanceAdmin struct {
	instpb.UnimplementedInstanceAdminServer
	b *Backend
}

const localConfigID = "emulator-config"

func instancePB(in *storage.Instance) *instpb.Instance {
	return &instpb.Instance{
		Name:            in.Name,
		Config:          in.Config,
		DisplayName:     in.DisplayName,
		NodeCount:       in.NodeCount,
		ProcessingUnits: in.ProcessingUnits,
		Labels:          in.Labels,
		State:           instpb.Instance_READY,
		CreateTime:      timestamppb.New(in.Created),
		UpdateTime:      timestamppb.New(in.Created),
	}
}

func configPB(project, id string) *instpb.InstanceConfig {
	return &instpb.InstanceConfig{
		Name:        project + "/instanceConfigs/" + id,
		DisplayName: "Local Spanload Spanner",
		ConfigType:  instpb.InstanceConfig_GOOGLE_MANAGED,
		State:       instpb.InstanceConfig_READY,
		Replicas:    []*instpb.ReplicaInfo{{Location: "local", Type: instpb.ReplicaInfo_READ_WRITE, DefaultLeaderLocation: true}},
	}
}

// ListInstanceConfigs lists the one config; its answer carries IdentityHeader.
func (s *instanceAdmin) ListInstanceConfigs(ctx context.Context, req *instpb.ListInstanceConfigsRequest) (*instpb.ListInstanceConfigsResponse, error) {
	s.b.sendIdentity(ctx)
	return &instpb.ListInstanceConfigsResponse{InstanceConfigs: []*instpb.InstanceConfig{configPB(req.Parent, localConfigID)}}, nil
}

func (s *instanceAdmin) GetInstanceConfig(_ context.Context, req *instpb.GetInstanceConfigRequest) (*instpb.InstanceConfig, error) {
	project, id, ok := strings.Cut(req.Name, "/instanceConfigs/")
	if !ok || id == "" {
		return nil, spanerr.InvalidArgument("Invalid instance config name: %s", req.Name)
	}
	if id != localConfigID {
		return nil, spanerr.NotFound("Instance config not found: %s (the local server offers only %s)", req.Name, localConfigID)
	}
	return configPB(project, id), nil
}

func (s *instanceAdmin) CreateInstance(_ context.Context, req *instpb.CreateInstanceRequest) (*longrunningpb.Operation, error) {
	if req.InstanceId == "" || req.Instance == nil {
		return nil, spanerr.InvalidArgument("CreateInstance needs instance_id and instance.")
	}
	name := req.Parent + "/instances/" + req.InstanceId
	in := &storage.Instance{
		Name: name, Config: req.Instance.Config, DisplayName: req.Instance.DisplayName,
		NodeCount: req.Instance.NodeCount, ProcessingUnits: req.Instance.ProcessingUnits, Labels: req.Instance.Labels,
	}
	if in.NodeCount == 0 && in.ProcessingUnits == 0 {
		in.NodeCount = 1
	}
	if in.ProcessingUnits == 0 {
		in.ProcessingUnits = in.NodeCount * 1000
	}
	if in.NodeCount == 0 {
		in.NodeCount = in.ProcessingUnits / 1000
	}
	if in.DisplayName == "" {
		in.DisplayName = req.InstanceId
	}
	if err := s.b.Reg.CreateInstance(in); err != nil {
		return nil, err
	}
	pb := instancePB(in)
	return s.b.ops.finish(name, &instpb.CreateInstanceMetadata{Instance: pb, StartTime: timestamppb.Now(), EndTime: timestamppb.Now()}, pb, nil)
}

func (s *instanceAdmin) GetInstance(_ context.Context, req *instpb.GetInstanceRequest) (*instpb.Instance, error) {
	in, err := s.b.Reg.Instance(req.Name)
	if err != nil {
		return nil, err
	}
	return instancePB(in), nil
}

func (s *instanceAdmin) ListInstances(_ context.Context, req *instpb.ListInstancesRequest) (*instpb.ListInstancesResponse, error) {
	resp := &instpb.ListInstancesResponse{}
	for _, in := range s.b.Reg.Instances(req.Parent) {
		resp.Instances = append(resp.Instances, instancePB(in))
	}
	return resp, nil
}

func (s *instanceAdmin) UpdateInstance(_ context.Context, req *instpb.UpdateInstanceRequest) (*longrunningpb.Operation, error) {
	in, err := s.b.Reg.Instance(req.GetInstance().GetName())
	if err != nil {
		return nil, err
	}
	up := *in
	for _, p := range req.GetFieldMask().GetPaths() {
		switch p {
		case "display_name":
			up.DisplayName = req.Instance.DisplayName
		case "node_count":
			up.NodeCount, up.ProcessingUnits = req.Instance.NodeCount, req.Instance.NodeCount*1000
		case "processing_units":
			up.ProcessingUnits, up.NodeCount = req.Instance.ProcessingUnits, req.Instance.ProcessingUnits/1000
		case "labels":
			up.Labels = req.Instance.Labels
		}
	}
	if err := s.b.Reg.UpdateInstance(&up); err != nil {
		return nil, err
	}
	pb := instancePB(&up)
	return s.b.ops.finish(up.Name, &instpb.UpdateInstanceMetadata{Instance: pb, StartTime: timestamppb.Now(), EndTime: timestamppb.Now()}, pb, nil)
}

func (s *instanceAdmin) DeleteInstance(_ context.Context, req *instpb.DeleteInstanceRequest) (*emptypb.Empty, error) {
	dropped, err := s.b.Reg.DeleteInstance(req.Name)
	for _, db := range dropped {
		s.b.dropped(db)
	}
	if err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}
